package server

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"time"

	"github.com/mcp-wasm/mcp-wasm/server/auth"
)

// Limits and defaults of an HTTPConfig.
const (
	// DefaultMaxBodyBytes is the default limit of one request body.
	DefaultMaxBodyBytes = 1 << 20
	// DefaultRateLimit is the default sustained number of requests per
	// second one client (a principal, or an address) may send, where
	// the server can tell clients apart (see NewHTTPConfig).
	DefaultRateLimit = 50
	// DefaultRateBurst is the default number of requests one client may
	// send at once before DefaultRateLimit applies.
	DefaultRateBurst = 100
	// DefaultKeepAlive is the default interval of SSE keep-alive comments.
	DefaultKeepAlive = 15 * time.Second
	// DefaultSessionIdleTimeout is the default idle time after which a
	// legacy (Mcp-Session-Id) session is closed.
	DefaultSessionIdleTimeout = 30 * time.Minute
	// DefaultShutdownGrace is the default time in-flight requests get to
	// finish on shutdown.
	DefaultShutdownGrace = 10 * time.Second
	// DefaultWriteTimeout is the default time a client has to take each
	// piece (up to 64 KiB) of what the server writes to it; a client that
	// does not has its stream closed.
	DefaultWriteTimeout = 10 * time.Second
	// DefaultMaxSessions is the default number of legacy sessions open at
	// once.
	DefaultMaxSessions = 1000
	// DefaultMaxSessionsPerClient is the default number of legacy sessions
	// one client (a principal, or an address when anonymous)
	// may hold at once: a tenth of DefaultMaxSessions, far more than a
	// client needs (one per server it connects to), far fewer than would
	// lock others out.
	DefaultMaxSessionsPerClient = 100
)

// HTTPConfig configures the Streamable HTTP transport (ServeStreamable,
// HTTPHandler). It is an immutable value: every With method returns a
// modified copy, and it is validated once when the handler is built.
type HTTPConfig struct {
	allowedHosts   []string
	allowedOrigins []string
	maxBody        int64
	rate           float64
	burst          int
	keepAlive      time.Duration
	writeTimeout   time.Duration
	sessionIdle    time.Duration
	shutdownGrace  time.Duration
	auth           auth.Config
	health         Health
	tls            *tls.Config
	bodyTimeout    time.Duration
	routes         []route
	middleware     []func(http.Handler) http.Handler
	trusted        []netip.Prefix
	maxSessions    int
	// maxSessionsPerClient bounds the legacy sessions of one client; 0: no bound.
	maxSessionsPerClient int
	// rateSet and perClientSet: the rate limit and the per-client session
	// bound were set explicitly, and stay whatever the bind (forBind).
	rateSet, perClientSet bool
	// oneClient: forBind found nothing that tells clients apart, so the
	// subscription and listen pools are not shared out per client either
	// (client.go).
	oneClient bool
}

// route is an extra handler served beside /mcp.
type route struct {
	pattern string
	handler http.Handler
}

// NewHTTPConfig returns the default HTTP configuration: on a loopback
// address only localhost Host and Origin values are accepted, request
// bodies up to DefaultMaxBodyBytes, DefaultRateLimit requests per second
// per client (burst DefaultRateBurst), SSE keep-alives every
// DefaultKeepAlive, at most DefaultMaxSessions legacy sessions
// (DefaultMaxSessionsPerClient per client) closed after
// DefaultSessionIdleTimeout idle, DefaultShutdownGrace to drain, no trusted
// proxies, no authentication, no TLS, and /readyz ready as soon as the
// server serves.
//
// The two per-client limits (the rate and the sessions per client) apply
// by default only where the server can tell clients apart. ServeStreamable
// on a loopback address, with neither authentication nor trusted proxies,
// leaves them off unless they were set explicitly: every local client
// there has the same address, so a per-address limit would only throttle
// the user's own tools together. Off loopback, or once tokens or a proxy
// name the clients, they are on.
func NewHTTPConfig() HTTPConfig {
	return HTTPConfig{
		maxBody:              DefaultMaxBodyBytes,
		rate:                 DefaultRateLimit,
		burst:                DefaultRateBurst,
		keepAlive:            DefaultKeepAlive,
		writeTimeout:         DefaultWriteTimeout,
		sessionIdle:          DefaultSessionIdleTimeout,
		shutdownGrace:        DefaultShutdownGrace,
		bodyTimeout:          30 * time.Second,
		maxSessions:          DefaultMaxSessions,
		maxSessionsPerClient: DefaultMaxSessionsPerClient,
	}
}

// WithAllowedHosts sets the Host header values (host names or IP
// addresses, without port) accepted besides localhost on a loopback
// address. "*" accepts any host; "*.example.com" accepts its subdomains.
// Defaults to none: a server on a non-loopback address refuses to start
// without an allowed host.
func (c HTTPConfig) WithAllowedHosts(hosts ...string) HTTPConfig {
	c.allowedHosts = slices.Clone(hosts)
	return c
}

// WithAllowedOrigins sets the browser origins (scheme://host[:port])
// accepted besides same-origin requests, and localhost origins on a
// loopback address. Defaults to none.
func (c HTTPConfig) WithAllowedOrigins(origins ...string) HTTPConfig {
	c.allowedOrigins = slices.Clone(origins)
	return c
}

// WithMaxBodyBytes sets the largest request body accepted (413 beyond).
// Defaults to DefaultMaxBodyBytes.
func (c HTTPConfig) WithMaxBodyBytes(n int64) HTTPConfig {
	c.maxBody = n
	return c
}

// WithRateLimit sets the sustained requests per second and the burst one
// client may send (429 beyond): an authenticated client is its principal
// (issuer or token kind, and subject), an anonymous one its address (its /64 for IPv6; behind a proxy,
// see WithTrustedProxies). A rate of 0 disables the limit. Defaults to
// DefaultRateLimit and DefaultRateBurst where clients can be told apart
// (NewHTTPConfig); set explicitly, it applies on every bind.
func (c HTTPConfig) WithRateLimit(perSecond float64, burst int) HTTPConfig {
	c.rate, c.burst, c.rateSet = perSecond, burst, true
	return c
}

// WithTrustedProxies sets the proxies (load balancers, ingress) whose
// X-Forwarded-For header is believed: for a request from one of them, the
// client is the last address in X-Forwarded-For that is not itself a
// trusted proxy. The client address keys the rate limit and names
// anonymous clients in the audit log. Defaults to none: the client is the
// peer of the connection.
func (c HTTPConfig) WithTrustedProxies(p ...netip.Prefix) HTTPConfig {
	c.trusted = slices.Clone(p)
	return c
}

// WithMaxSessions sets how many legacy (Mcp-Session-Id) sessions may be
// open at once; an initialize beyond it gets 503. 2026-07-28 requests have
// no session and are not counted. Defaults to DefaultMaxSessions.
func (c HTTPConfig) WithMaxSessions(n int) HTTPConfig {
	c.maxSessions = n
	return c
}

// WithMaxSessionsPerClient sets how many legacy sessions one client may
// hold at once: an authenticated client is its principal (issuer or token
// kind, and subject), an anonymous one its address (its /64 for IPv6; behind a proxy, see
// WithTrustedProxies). An initialize beyond it gets 429 saying what to do;
// other clients can still open sessions. 0 removes the per-client bound
// (a load test from one address needs it); WithMaxSessions still applies.
// Defaults to DefaultMaxSessionsPerClient where clients can be told apart
// (NewHTTPConfig); set explicitly, it applies on every bind.
func (c HTTPConfig) WithMaxSessionsPerClient(n int) HTTPConfig {
	c.maxSessionsPerClient, c.perClientSet = n, true
	return c
}

// forBind resolves the per-client defaults for a listener: on a loopback
// address where neither authentication nor a trusted proxy tells clients
// apart, the limits not set explicitly are off.
func (c HTTPConfig) forBind(loopback bool) HTTPConfig {
	if !loopback || c.auth.Enabled() || len(c.trusted) > 0 {
		return c
	}
	c.oneClient = true
	if !c.rateSet {
		c.rate = 0
	}
	if !c.perClientSet {
		c.maxSessionsPerClient = 0
	}
	return c
}

// WithKeepAlive sets the interval of the SSE comment lines sent on idle
// event streams so that proxies do not time them out. Defaults to
// DefaultKeepAlive.
func (c HTTPConfig) WithKeepAlive(d time.Duration) HTTPConfig {
	c.keepAlive = d
	return c
}

// WithWriteTimeout sets how long a client may leave the server's writes
// untaken: each write of at most 64 KiB to a response or event stream must
// reach the client's socket within d, or the stream is closed (logged at
// warn, counted as a laggard with reason write_timeout) and its request
// ends. A client that stops reading its stream then costs only that
// stream, never another client's notifications. Defaults to
// DefaultWriteTimeout.
func (c HTTPConfig) WithWriteTimeout(d time.Duration) HTTPConfig {
	c.writeTimeout = d
	return c
}

// WithSessionIdleTimeout sets how long a legacy session may stay without
// requests before it is closed; a request in progress, such as an open GET
// stream, counts as activity. Defaults to DefaultSessionIdleTimeout.
func (c HTTPConfig) WithSessionIdleTimeout(d time.Duration) HTTPConfig {
	c.sessionIdle = d
	return c
}

// WithShutdownGrace sets how long ServeStreamable lets in-flight requests
// finish once its context is done, before it closes every connection.
// Defaults to DefaultShutdownGrace.
func (c HTTPConfig) WithShutdownGrace(d time.Duration) HTTPConfig {
	c.shutdownGrace = d
	return c
}

// WithAuth sets how requests to /mcp authenticate. Defaults to no
// authentication.
func (c HTTPConfig) WithAuth(a auth.Config) HTTPConfig {
	c.auth = a
	return c
}

// WithHealth sets what /readyz asks. Defaults to always ready.
func (c HTTPConfig) WithHealth(h Health) HTTPConfig {
	c.health = h
	return c
}

// WithTLS makes ServeStreamable serve HTTPS with cfg, which must hold a
// certificate. Defaults to plain HTTP.
func (c HTTPConfig) WithTLS(cfg *tls.Config) HTTPConfig {
	if cfg != nil {
		cfg = cfg.Clone()
	}
	c.tls = cfg
	return c
}

// WithRoute serves h at pattern (an http.ServeMux pattern, e.g.
// "GET /metrics") beside /mcp. Like /healthz and /readyz it gets neither
// authentication nor the rate limit: it is meant for the operator's
// infrastructure. On a loopback connection it gets the Host and Origin
// checks of /mcp (403 otherwise), so that DNS rebinding cannot reach it.
// Defaults to none.
func (c HTTPConfig) WithRoute(pattern string, h http.Handler) HTTPConfig {
	c.routes = append(slices.Clone(c.routes), route{pattern, h})
	return c
}

// WithMCPMiddleware wraps the whole handling of /mcp, refusals included,
// in mw (e.g. to count responses); the first one given is the outermost.
// Defaults to none.
func (c HTTPConfig) WithMCPMiddleware(mw func(http.Handler) http.Handler) HTTPConfig {
	c.middleware = append(slices.Clone(c.middleware), mw)
	return c
}

// TLSEnabled reports whether WithTLS set a configuration.
func (c HTTPConfig) TLSEnabled() bool { return c.tls != nil }

func (c HTTPConfig) validate() error {
	if c.maxBody < 1 {
		return fmt.Errorf("max body %d bytes is not positive: use a size such as 1MiB", c.maxBody)
	}
	if c.rate < 0 || (c.rate > 0 && c.burst < 1) {
		return fmt.Errorf("rate limit %g/s burst %d: use a rate of 0 (off) or a positive rate and burst", c.rate, c.burst)
	}
	if c.maxSessions < 1 {
		return fmt.Errorf("max sessions %d is not positive: use a number such as %d", c.maxSessions, DefaultMaxSessions)
	}
	if c.maxSessionsPerClient < 0 {
		return fmt.Errorf("max sessions per client %d is negative: use 0 (no per-client bound) or a number such as %d",
			c.maxSessionsPerClient, DefaultMaxSessionsPerClient)
	}
	if c.keepAlive <= 0 || c.sessionIdle <= 0 || c.shutdownGrace <= 0 || c.writeTimeout <= 0 {
		return fmt.Errorf("keep-alive, write timeout, session idle timeout and shutdown grace must be positive durations")
	}
	for _, h := range c.allowedHosts {
		if _, err := hostPattern(h); err != nil {
			return err
		}
	}
	for _, o := range c.allowedOrigins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return fmt.Errorf("allowed origin %q: give scheme://host[:port], e.g. https://app.example.com", o)
		}
	}
	for _, r := range c.routes {
		if r.handler == nil || r.pattern == "" {
			return fmt.Errorf("route %q has no handler", r.pattern)
		}
	}
	if c.tls != nil && len(c.tls.Certificates) == 0 && c.tls.GetCertificate == nil {
		return fmt.Errorf("TLS configuration has no certificate: give a certificate and key")
	}
	return c.auth.Validate()
}
