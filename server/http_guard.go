package server

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// guard checks the Host and Origin of a request against the allowlists, so
// that neither DNS rebinding nor a cross-site page in a browser reaches
// /mcp. On a loopback connection, localhost names are always accepted.
type guard struct {
	hosts   []string // lower-case names; "*.x" matches subdomains of x
	anyHost bool
	origins map[string]bool // lower-case scheme://host[:port]
	cop     *http.CrossOriginProtection
}

func newGuard(cfg HTTPConfig) (*guard, error) {
	g := &guard{origins: map[string]bool{}, cop: http.NewCrossOriginProtection()}
	for _, h := range cfg.allowedHosts {
		p, err := hostPattern(h)
		if err != nil {
			return nil, err
		}
		g.anyHost = g.anyHost || p == "*"
		g.hosts = append(g.hosts, p)
	}
	for _, o := range cfg.allowedOrigins {
		o = strings.ToLower(strings.TrimSuffix(o, "/"))
		if err := g.cop.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("allowed origin %q: %w: give scheme://host[:port]", o, err)
		}
		g.origins[o] = true
	}
	return g, nil
}

// hostPattern validates and normalizes an allowed host.
func hostPattern(h string) (string, error) {
	p := strings.ToLower(strings.Trim(h, "[]"))
	if p == "*" {
		return p, nil
	}
	name := strings.TrimSuffix(strings.TrimPrefix(p, "*."), ".")
	if _, err := netip.ParseAddr(name); err == nil && name == p {
		return p, nil
	}
	if name == "" || strings.ContainsAny(name, "/:@?#[] *") {
		return "", fmt.Errorf("allowed host %q: give a host name or IP address without scheme or port, or *", h)
	}
	return strings.TrimSuffix(p, "."), nil
}

// check returns "" when r may proceed, else the reason it may not.
func (g *guard) check(r *http.Request) string {
	local := loopbackConn(r)
	if !g.hostAllowed(hostname(r.Host), local) {
		return "host"
	}
	if !g.originAllowed(r, local) {
		return "origin"
	}
	return ""
}

func (g *guard) hostAllowed(host string, local bool) bool {
	switch {
	case host == "":
		return false
	case local && isLocalName(host), g.anyHost:
		return true
	}
	for _, p := range g.hosts {
		if p == host || (strings.HasPrefix(p, "*.") && strings.HasSuffix(host, p[1:])) {
			return true
		}
	}
	return false
}

// originAllowed accepts no Origin (unless Sec-Fetch-Site says a browser
// sent it cross-site), an allowed origin, a localhost origin on a loopback
// connection, and the same origin as the (already checked) Host.
func (g *guard) originAllowed(r *http.Request, local bool) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return g.cop.Check(r) == nil
	}
	if g.origins[strings.ToLower(o)] {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	if local && isLocalName(hostname(u.Host)) {
		return true
	}
	return strings.EqualFold(u.Host, r.Host)
}

// hostname returns the lower-case host of a Host header or URL host,
// without port, brackets or trailing dot.
func hostname(hostport string) string {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	return strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
}

// isLocalName reports whether host is localhost or a loopback address.
func isLocalName(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// loopbackConn reports whether r arrived on a loopback address.
func loopbackConn(r *http.Request) bool {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || a == nil {
		return false
	}
	ap, err := netip.ParseAddrPort(a.String())
	return err == nil && ap.Addr().Unmap().IsLoopback()
}

// cors lets a browser page from an origin that passed check read the
// responses (and the session id), and answers a CORS preflight. It reports
// whether it answered the request.
func (g *guard) cors(w http.ResponseWriter, r *http.Request) bool {
	h := w.Header()
	origin := r.Header.Get("Origin")
	if origin != "" {
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, WWW-Authenticate")
	}
	if r.Method != http.MethodOptions {
		return false
	}
	h.Set("Allow", "GET, POST, DELETE, OPTIONS")
	if origin != "" {
		h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, Last-Event-ID, "+
			"MCP-Protocol-Version, Mcp-Session-Id, Mcp-Method, Mcp-Name")
		h.Set("Access-Control-Max-Age", "600")
	}
	w.WriteHeader(http.StatusNoContent)
	return true
}
