// Package egress is a provider's outbound HTTP: the operator's allowlist
// of URL prefixes, parsed strictly, and a client whose every request,
// redirect and connection (after DNS) is checked against it. It grants
// nothing by itself: the root passes the operator's grant down, and links
// http_fetch only when one was given.
package egress

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sort"
	"syscall"
	"time"
)

// Defaults of a grant (runtime.DefaultMaxResponse and
// DefaultMaxRequest).
const (
	DefaultMaxResponse = 1 << 20
	DefaultMaxRequest  = 64 << 10
)

// Grant is the operator's HTTP grant as the root passes it down (see
// runtime.HTTPGrant for each field), already validated.
type Grant struct {
	Allow               []Rule
	AllowPrivateNetwork bool
	MaxResponseBytes    int
	MaxRequestBytes     int
	Timeout             time.Duration
}

// Rule is one allowed URL prefix (see runtime.HTTPRule).
type Rule struct {
	Prefix  string
	Methods []string
}

// SortedMethods returns a rule's methods, defaulted and sorted.
func (r Rule) SortedMethods() []string {
	if len(r.Methods) == 0 {
		return []string{"GET", "HEAD"}
	}
	m := append([]string(nil), r.Methods...)
	sort.Strings(m)
	return m
}

// Egress is one provider's outbound HTTP (egress).
type Egress = egress

// Fixed bounds of the egress client.
const (
	egressConnectTimeout = 10 * time.Second
	egressMaxRedirects   = 5
	egressMaxHeaderBytes = 64 << 10
	egressIdleTimeout    = 30 * time.Second
)

// egress is one provider's outbound HTTP: its parsed allowlist and a client
// whose every hop and every connection is checked against it. It is shared
// by the provider's instances and safe for concurrent use.
type egress struct {
	rules     []rule
	privateOK bool
	maxResp   int
	maxReq    int
	timeout   time.Duration
	client    *http.Client
	log       func() *slog.Logger
	// lookup resolves a host name; tests replace it to make DNS answers
	// deterministic. It never replaces the dial-time address check.
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
}

// deniedError is a refusal by the operator's policy (as opposed to a
// network failure); its message says what was refused and the fix.
type deniedError struct{ msg string }

func (e *deniedError) Error() string { return e.msg }

// New builds the client for g, or returns nil when g grants nothing.
// g has been validated.
func New(g Grant, log func() *slog.Logger) *egress {
	if len(g.Allow) == 0 {
		return nil
	}
	e := &egress{privateOK: g.AllowPrivateNetwork, maxResp: g.MaxResponseBytes, maxReq: g.MaxRequestBytes, timeout: g.Timeout, log: log}
	if e.maxResp == 0 {
		e.maxResp = DefaultMaxResponse
	}
	if e.maxReq == 0 {
		e.maxReq = DefaultMaxRequest
	}
	for _, r := range g.Allow {
		pr, _ := parseRule(r)
		e.rules = append(e.rules, pr)
	}
	e.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}
	e.client = &http.Client{
		Transport: &http.Transport{
			Proxy:                  nil, // never from the environment
			DialContext:            e.dial,
			TLSHandshakeTimeout:    egressConnectTimeout,
			MaxResponseHeaderBytes: egressMaxHeaderBytes,
			MaxIdleConnsPerHost:    2,
			IdleConnTimeout:        egressIdleTimeout,
		},
		CheckRedirect: e.checkRedirect,
	}
	return e
}

// check refuses a request the allowlist does not cover, saying why and the
// fix; the caller names the request.
func (e *egress) check(method string, u *url.URL) error {
	if err := checkURL(u); err != nil {
		return &deniedError{msg: err.Error()}
	}
	for _, r := range e.rules {
		if r.allows(method, u) {
			return nil
		}
	}
	return &deniedError{msg: "not under any allowed http prefix for " + method + ": grant a prefix that covers it (--allow-http PREFIX; POST only if granted)"}
}

// checkRedirect re-checks every hop against the allowlist; a redirect is a
// new request the guest did not write, to a place the server chose.
func (e *egress) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= egressMaxRedirects {
		return &deniedError{msg: fmt.Sprintf("more than %d redirects", egressMaxRedirects)}
	}
	if err := e.check(req.Method, req.URL); err != nil {
		return &deniedError{msg: "redirect to " + req.Method + " " + redact(req.URL) + ": " + err.Error()}
	}
	return nil
}

// dial resolves host itself (so the answer is checked and then used, with
// no second lookup) and connects to each address through a dialer whose
// Control refuses forbidden addresses at connect time.
func (e *egress) dial(ctx context.Context, network, hostport string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, err
	}
	addrs, err := e.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: egressConnectTimeout, Control: e.control}
	var first error
	for _, a := range addrs {
		conn, err := d.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return conn, nil
		}
		var denied *deniedError
		if errors.As(err, &denied) && host != a.String() {
			err = &deniedError{msg: host + ": " + denied.msg}
		}
		if first == nil || (errors.As(err, &denied) && !errors.As(first, &denied)) {
			first = err
		}
	}
	return nil, first
}

func (e *egress) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	addrs, err := e.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("lookup %s: no addresses", host)
	}
	return addrs, nil
}

// control runs after the socket exists and before it connects, on the
// address actually dialed: the one check DNS rebinding cannot get around.
func (e *egress) control(network, address string, _ syscall.RawConn) error {
	if network != "tcp4" && network != "tcp6" {
		return &deniedError{msg: "network " + network + " is not TCP"}
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &deniedError{msg: "address " + address + " does not parse"}
	}
	if why := addrVerdict(ap.Addr(), e.privateOK); why != "" {
		fix := ""
		if addrVerdict(ap.Addr(), true) == "" {
			fix = ": grant --allow-private-network to allow it"
		}
		return &deniedError{msg: "address " + ap.Addr().String() + " is " + why + fix}
	}
	return nil
}

// close drops idle connections; called when the provider's runtime closes.
// Close drops the client's idle connections.
func (e *egress) Close() { e.client.CloseIdleConnections() }
