package abi

import (
	"fmt"
	"strings"
)

// Resource templates (ABI §6.2) are RFC 6570 URI templates whose every
// expansion must lie in the provider's URI space. The runtime applies
// CheckTemplate to what a guest returns, and the MCP layer to what any
// provider returns, so the rule lives here once. It is written on the
// standard library (this package also builds for guests): a parser of the
// RFC 6570 syntax, levels 1 to 4, for the printable ASCII the ABI allows.

// CheckTemplate reports whether tmpl is a resource template that stays in
// space, whatever values a client gives its variables. It must be 1 to
// MaxURILength bytes of printable ASCII in RFC 6570 syntax (levels 1-4;
// the reserved operators = , ! @ | are refused), and its literal text
// before the first expression must fix:
//   - the scheme, one of a root's ("{s}:x" and "notes{x}:" are refused);
//   - the authority, when that root names one, up to its end ("https://api{x}"
//     is refused); when the root has none, no expansion may start an
//     authority (so "notes:{+x}" is refused: x could be "//host/");
//   - the path up to a '/' boundary of the root's path prefix
//     ("file:///srv/data{x}" is refused under /srv/data).
//
// An expansion with every variable set to "x" must also lie in space. The
// error wraps ErrInvalid, and ErrForeignURI when the syntax is right but
// the template can leave space.
func CheckTemplate(tmpl string, space URISpace) error {
	t, err := parseTemplate(tmpl)
	if err != nil {
		return fmt.Errorf("%w: uriTemplate %w", ErrInvalid, err)
	}
	if !t.fixedInSpace(space) || !space.OwnsString(t.probe()) {
		return fmt.Errorf("%w: uriTemplate: %w", ErrInvalid, ErrForeignURI)
	}
	return nil
}

// template is a parsed URI template: literal text and expressions in turn.
type template struct {
	raw   string
	parts []templatePart
}

// templatePart is a literal (op == 0 and no vars) or an expression.
type templatePart struct {
	literal string
	op      byte // 0 for a literal or a simple expression, else + # . / ; ? &
	expr    bool
	vars    []string
	explode bool // some variable is exploded (a list or map may repeat the separator)
}

// parseTemplate parses tmpl, or says what is wrong with it.
func parseTemplate(tmpl string) (*template, error) {
	if tmpl == "" || len(tmpl) > MaxURILength || !isPrintableASCII(tmpl) {
		return nil, fmt.Errorf("must be 1-%d bytes of printable ASCII", MaxURILength)
	}
	t := &template{raw: tmpl}
	for rest := tmpl; rest != ""; {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			open = len(rest)
		}
		if open > 0 {
			if err := checkLiteral(rest[:open]); err != nil {
				return nil, err
			}
			t.parts = append(t.parts, templatePart{literal: rest[:open]})
			rest = rest[open:]
			continue
		}
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return nil, fmt.Errorf("is not RFC 6570: an expression is not closed with '}'")
		}
		p, err := parseExpression(rest[1:end])
		if err != nil {
			return nil, err
		}
		t.parts = append(t.parts, p)
		rest = rest[end+1:]
	}
	return t, nil
}

// checkLiteral accepts RFC 6570 literals (with the erratum allowing "'"):
// printable ASCII but space " % < > \ ^ ` { | }, and %XX escapes.
func checkLiteral(s string) error {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%':
			if i+2 >= len(s) || !isHexDigit(s[i+1]) || !isHexDigit(s[i+2]) {
				return fmt.Errorf("is not RFC 6570: '%%' must start a %%XX escape")
			}
			i += 2
		case strings.IndexByte(" \"<>\\^`{|}", c) >= 0:
			return fmt.Errorf("is not RFC 6570: %q is not allowed outside an expression: percent-encode it", c)
		}
	}
	return nil
}

// parseExpression parses the text between '{' and '}'.
func parseExpression(s string) (templatePart, error) {
	p := templatePart{expr: true}
	if s != "" && strings.IndexByte("+#./;?&", s[0]) >= 0 {
		p.op, s = s[0], s[1:]
	} else if s != "" && strings.IndexByte("=,!@|", s[0]) >= 0 {
		return p, fmt.Errorf("is not RFC 6570: operator %q is reserved", s[0])
	}
	for _, spec := range strings.Split(s, ",") {
		name, err := parseVarspec(spec)
		if err != nil {
			return p, err
		}
		p.vars = append(p.vars, name)
		p.explode = p.explode || strings.HasSuffix(spec, "*")
	}
	return p, nil
}

// parseVarspec parses varname [":" max-length | "*"] and returns the name.
func parseVarspec(spec string) (string, error) {
	name := spec
	if i := strings.IndexAny(spec, ":*"); i >= 0 {
		name = spec[:i]
		switch mod := spec[i:]; {
		case mod == "*":
		case len(mod) >= 2 && len(mod) <= 5 && mod[0] == ':' && mod[1] != '0' && allDigits(mod[1:]):
		default:
			return "", fmt.Errorf("is not RFC 6570: modifier %q: use :N (1-9999) or *", mod)
		}
	}
	if !isVarname(name) {
		return "", fmt.Errorf("is not RFC 6570: variable name %q: use letters, digits, '_', %%XX and inner dots", name)
	}
	return name, nil
}

// isVarname reports whether s is varchar *(["."] varchar).
func isVarname(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%':
			if i+2 >= len(s) || !isHexDigit(s[i+1]) || !isHexDigit(s[i+2]) {
				return false
			}
			i += 2
		case c == '.', c == '_', c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		default:
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// probe expands t with every variable set to "x" (RFC 6570 §3.2).
func (t *template) probe() string {
	var b strings.Builder
	for _, p := range t.parts {
		if !p.expr {
			b.WriteString(p.literal)
			continue
		}
		first, sep, named := "", ",", false
		switch p.op {
		case '#':
			first = "#"
		case '.', '/':
			first, sep = string(p.op), string(p.op)
		case ';':
			first, sep, named = ";", ";", true
		case '?', '&':
			first, sep, named = string(p.op), "&", true
		}
		b.WriteString(first)
		for i, name := range p.vars {
			if i > 0 {
				b.WriteString(sep)
			}
			if named {
				b.WriteString(name + "=")
			}
			b.WriteString("x")
		}
	}
	return b.String()
}

// literalPrefix is the literal text before the first expression, and
// whether an expression follows it.
func (t *template) literalPrefix() (string, bool) {
	if len(t.parts) == 0 || t.parts[0].expr {
		return "", len(t.parts) > 0
	}
	return t.parts[0].literal, len(t.parts) > 1
}

// fixedInSpace reports whether the literal prefix of t puts every
// expansion under one root of space (see CheckTemplate).
func (t *template) fixedInSpace(space URISpace) bool {
	lit, open := t.literalPrefix()
	if !open {
		return space.OwnsString(lit)
	}
	for _, r := range space {
		if t.prefixInRoot(lit, r) {
			return true
		}
	}
	return false
}

// prefixInRoot reports whether every expansion of t, whose literal prefix
// is lit, is owned by r as far as scheme, authority and path prefix go.
func (t *template) prefixInRoot(lit string, r URIRoot) bool {
	scheme, rest, ok := strings.Cut(lit, ":")
	if !ok || !strings.EqualFold(scheme, r.Scheme) {
		return false
	}
	path := rest
	switch {
	case strings.HasPrefix(rest, "//"):
		end := strings.IndexAny(rest[2:], "/?#")
		if end < 0 {
			// The authority is not finished: an expression can extend it.
			return r.Authority == AnyAuthority && r.PathPrefix == ""
		}
		auth := rest[2 : 2+end]
		switch {
		case r.Authority == "" && auth != "":
			return false
		case r.Authority != "" && r.Authority != AnyAuthority && (!strings.EqualFold(auth, r.Authority) || strings.Contains(auth, "@")):
			return false
		}
		path = rest[2+end:]
	case r.Authority != "":
		return false // the root's authority, even "*", must be written out
	case (rest == "" || rest == "/") && t.mayStartAuthority(rest):
		return false
	}
	return pathPrefixFixed(path, r.PathPrefix)
}

// mayStartAuthority reports whether some expansion of t, whose literal
// prefix after the scheme's ':' is rest ("" or "/"), could go on with
// "//" and a host: an authority the root does not have. It follows the
// leading slashes through every part, each expression either empty (all
// its variables undefined) or one of the shapes its operator can produce.
func (t *template) mayStartAuthority(rest string) bool {
	const safe, unsafe = -1, -2
	states := map[int]bool{len(rest): true}
	for _, p := range t.parts[1:] {
		outs := []string{p.literal}
		if p.expr {
			outs = expressionShapes(p)
		}
		next := map[int]bool{}
		for st := range states {
			for _, o := range outs {
				next[feedSlashes(st, o)] = true
			}
		}
		states = next
		if states[unsafe] {
			return true
		}
		if len(states) == 1 && states[safe] {
			return false
		}
	}
	return states[unsafe]
}

// expressionShapes are the outputs of expression p that differ in leading
// slashes: "" (every variable undefined), and for reserved (+) and path (/)
// expansion every way of starting with slashes. A path expansion of one
// unexploded variable writes one '/' and an escaped value; with more, an
// empty value between two separators makes "//".
func expressionShapes(p templatePart) []string {
	switch {
	case p.op == '+':
		return []string{"", "a", "/", "/a", "//", "//a"}
	case p.op == '/' && len(p.vars) == 1 && !p.explode:
		return []string{"", "/", "/a"}
	case p.op == '/':
		return []string{"", "/", "/a", "//", "//a"}
	}
	return []string{"", "a"} // never starts with '/': values are escaped
}

// feedSlashes advances the leading-slash count st (0-2 slashes after the
// scheme's ':'; -1 decided safe; -2 an authority started) by s.
func feedSlashes(st int, s string) int {
	for i := 0; i < len(s) && st >= 0; i++ {
		switch {
		case s[i] == '/' && st == 2:
			st = -1 // "///": an empty authority
		case s[i] == '/':
			st++
		case st == 2:
			st = -2 // "//" and a host
		default:
			st = -1 // an opaque or rootless path: never an authority
		}
	}
	return st
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
