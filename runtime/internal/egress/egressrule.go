package egress

import (
	"fmt"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/errs"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/textsafe"
	"net"
	"net/url"
	"slices"
	"strings"
)

// rule is a parsed Rule: everything compared in canonical form.
type rule struct {
	scheme, host, port, path string
	methods                  []string
}

// parseRule parses and checks an operator's prefix.
func parseRule(r Rule) (rule, error) {
	bad := func(why string) (rule, error) {
		return rule{}, fmt.Errorf("%w: http prefix %q: %s", errs.ErrConfig, r.Prefix, why)
	}
	u, err := url.Parse(r.Prefix)
	switch {
	case err != nil:
		return bad("does not parse as a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return bad("scheme must be http or https")
	case u.Host == "" || u.Opaque != "":
		return bad("must be an absolute URL with a host, like https://api.example.com/v1/")
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(r.Prefix, "?#"):
		return bad("must not contain userinfo, a query or a fragment")
	case !isASCIIHost(u.Hostname()):
		return bad("host must be ASCII (write internationalized names in punycode)")
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if err := checkPath(p); err != nil {
		return bad(fmt.Sprintf("ambiguous path: %v: write the plain path, without dot or empty segments, ';', backslashes or escaped '.', '/', '\\', ';' or '%%'", err))
	}
	out := rule{scheme: u.Scheme, host: canonicalHost(u.Hostname()), port: portOf(u), path: p}
	for _, m := range r.Methods {
		if m != "GET" && m != "HEAD" && m != "POST" {
			return bad(fmt.Sprintf("method %q: use GET, HEAD or POST", m))
		}
	}
	out.methods = r.SortedMethods()
	return out, nil
}

// CheckRule reports what is wrong with r, wrapping runtime.ErrConfig.
func CheckRule(r Rule) error {
	_, err := parseRule(r)
	return err
}

// RuleAllows reports whether r, if valid, allows method on u (which has
// not been checked: see checkURL).
func RuleAllows(r Rule, method string, u *url.URL) bool {
	pr, err := parseRule(r)
	return err == nil && pr.allows(method, u)
}

// allows reports whether the rule allows method on u. u has already passed
// checkURL, so its escaped path means the same to every server, and a
// prefix match on it is a match on what the server serves.
func (r rule) allows(method string, u *url.URL) bool {
	if u.Scheme != r.scheme || canonicalHost(u.Hostname()) != r.host || portOf(u) != r.port {
		return false
	}
	if !slices.Contains(r.methods, method) {
		return false
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if strings.HasSuffix(r.path, "/") {
		return strings.HasPrefix(p, r.path)
	}
	return p == r.path || strings.HasPrefix(p, r.path+"/")
}

func canonicalHost(h string) string { return strings.TrimSuffix(strings.ToLower(h), ".") }

func isASCIIHost(h string) bool {
	if h == "" {
		return false
	}
	for i := 0; i < len(h); i++ {
		if h[i] <= ' ' || h[i] >= 0x7f {
			return false
		}
	}
	return true
}

// portOf returns u's port, defaulted by scheme.
func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// redact renders u for messages and logs: no userinfo, query or fragment,
// and cut to a readable length.
func redact(u *url.URL) string {
	s := u.Scheme + "://" + net.JoinHostPort(u.Hostname(), portOf(u)) + u.EscapedPath()
	if u.RawQuery != "" {
		s += "?…"
	}
	return textsafe.Sanitize(s, 200)
}
