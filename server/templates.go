package server

import (
	"errors"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/yosida95/uritemplate/v3"
)

var (
	errTemplateSyntax  = errors.New("not an RFC 6570 template")
	errTemplateForeign = errors.New("template expands outside the provider's uri space")
)

// checkTemplate parses an RFC 6570 template and checks that every expansion
// lies inside space. It is conservative: the literal text before the first
// expression must fix the scheme, the authority when a root names one, and
// the path up to a '/' boundary of a root's path prefix. A probe expansion
// (every variable set to "x") must also be owned.
func checkTemplate(tmpl string, space abi.URISpace) error {
	if len(tmpl) > abi.MaxURILength {
		return errTemplateSyntax
	}
	t, err := uritemplate.New(tmpl)
	if err != nil {
		return errTemplateSyntax
	}
	if !literalInSpace(tmpl, space) {
		return errTemplateForeign
	}
	vals := uritemplate.Values{}
	for _, name := range t.Varnames() {
		vals.Set(name, uritemplate.String("x"))
	}
	probe, err := t.Expand(vals)
	if err != nil || !space.OwnsString(probe) {
		return errTemplateForeign
	}
	return nil
}

// literalInSpace reports whether every string that starts with the literal
// prefix of tmpl (all of tmpl if it has no expression) is owned by a root.
func literalInSpace(tmpl string, space abi.URISpace) bool {
	lit, open := tmpl, false
	if i := strings.IndexByte(tmpl, '{'); i >= 0 {
		lit, open = tmpl[:i], true
	}
	if !open {
		return space.OwnsString(tmpl)
	}
	for _, r := range space {
		if prefixInRoot(lit, r) {
			return true
		}
	}
	return false
}

// prefixInRoot reports whether every URI that starts with lit (and continues
// arbitrarily) is owned by r.
func prefixInRoot(lit string, r abi.URIRoot) bool {
	scheme, rest, ok := strings.Cut(lit, ":")
	if !ok || !strings.EqualFold(scheme, r.Scheme) {
		return false
	}
	path := rest
	if strings.HasPrefix(rest, "//") {
		end := strings.IndexAny(rest[2:], "/?#")
		if end < 0 {
			// The authority is not finished: an expression can extend it.
			return (r.Authority == "" || r.Authority == abi.AnyAuthority) && r.PathPrefix == ""
		}
		auth := rest[2 : 2+end]
		named := r.Authority != "" && r.Authority != abi.AnyAuthority
		if named && (!strings.EqualFold(auth, r.Authority) || strings.Contains(auth, "@")) {
			return false
		}
		path = rest[2+end:]
	} else if r.Authority != "" {
		return false
	}
	return pathPrefixFixed(path, r.PathPrefix)
}

// pathPrefixFixed reports whether every path starting with lit (lit may run
// on into a query or fragment) lies under prefix.
func pathPrefixFixed(lit, prefix string) bool {
	if prefix == "" {
		return true
	}
	p, closed := lit, false
	if i := strings.IndexAny(lit, "?#"); i >= 0 {
		p, closed = lit[:i], true
	}
	if !strings.HasPrefix(p, prefix) {
		return false
	}
	switch {
	case len(p) == len(prefix):
		// An expression could run on into the segment ("/a" + "bc").
		return closed || strings.HasSuffix(prefix, "/")
	default:
		return strings.HasSuffix(prefix, "/") || p[len(prefix)] == '/'
	}
}
