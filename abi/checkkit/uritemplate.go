package checkkit

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The battery expands resource templates the way an MCP client does (RFC
// 6570, string values only) to read what a completion offers. abi checks
// that a template is well formed and stays in the provider's space; this is
// the small expander the standard library lacks.

// tmplExpr is one expression of a template: its operator and variables.
type tmplExpr struct {
	op   byte // 0 or one of + # . / ; ? &
	vars []tmplVar
}

type tmplVar struct {
	name   string
	prefix int // :n, 0 when none
}

// tmplPart is a literal or an expression.
type tmplPart struct {
	literal string
	expr    *tmplExpr
}

func parseTmpl(t string) ([]tmplPart, error) {
	var parts []tmplPart
	for t != "" {
		open := strings.IndexByte(t, '{')
		if open < 0 {
			parts = append(parts, tmplPart{literal: t})
			break
		}
		if open > 0 {
			parts = append(parts, tmplPart{literal: t[:open]})
		}
		end := strings.IndexByte(t[open:], '}')
		if end < 0 {
			return nil, errors.New("an expression is not closed")
		}
		e, err := parseExpr(t[open+1 : open+end])
		if err != nil {
			return nil, err
		}
		parts = append(parts, tmplPart{expr: e})
		t = t[open+end+1:]
	}
	return parts, nil
}

func parseExpr(s string) (*tmplExpr, error) {
	e := &tmplExpr{}
	if s != "" && strings.IndexByte("+#./;?&", s[0]) >= 0 {
		e.op, s = s[0], s[1:]
	}
	for spec := range strings.SplitSeq(s, ",") {
		v := tmplVar{name: strings.TrimSuffix(spec, "*")}
		if name, n, ok := strings.Cut(v.name, ":"); ok {
			v.name = name
			if _, err := fmt.Sscanf(n, "%d", &v.prefix); err != nil || v.prefix <= 0 {
				return nil, fmt.Errorf("bad prefix modifier in %q", spec)
			}
		}
		if v.name == "" {
			return nil, fmt.Errorf("an empty variable name in {%s}", s)
		}
		e.vars = append(e.vars, v)
	}
	return e, nil
}

// templateVars lists the variables of a template, each once, in order.
func templateVars(t string) ([]string, error) {
	parts, err := parseTmpl(t)
	if err != nil {
		return nil, err
	}
	var names []string
	seen := map[string]bool{}
	for _, p := range parts {
		if p.expr == nil {
			continue
		}
		for _, v := range p.expr.vars {
			if !seen[v.name] {
				seen[v.name] = true
				names = append(names, v.name)
			}
		}
	}
	return names, nil
}

// expand expands t with string values (RFC 6570 §3.2); a variable without
// a value is undefined and left out, as the RFC says.
func expand(t string, vals map[string]string) (string, error) {
	parts, err := parseTmpl(t)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range parts {
		if p.expr == nil {
			b.WriteString(p.literal)
			continue
		}
		p.expr.expand(&b, vals)
	}
	return b.String(), nil
}

func (e *tmplExpr) expand(b *strings.Builder, vals map[string]string) {
	first, sep, named, ifEmpty, reserved := "", ",", false, "", false
	switch e.op {
	case '+':
		reserved = true
	case '#':
		first, reserved = "#", true
	case '.', '/':
		first, sep = string(e.op), string(e.op)
	case ';':
		first, sep, named = ";", ";", true
	case '?', '&':
		first, sep, named, ifEmpty = string(e.op), "&", true, "="
	}
	n := 0
	for _, v := range e.vars {
		val, ok := vals[v.name]
		if !ok {
			continue
		}
		if v.prefix > 0 && utf8.RuneCountInString(val) > v.prefix {
			val = string([]rune(val)[:v.prefix])
		}
		if n == 0 {
			b.WriteString(first)
		} else {
			b.WriteString(sep)
		}
		n++
		if named {
			b.WriteString(v.name)
			if val == "" {
				b.WriteString(ifEmpty)
				continue
			}
			b.WriteByte('=')
		}
		b.WriteString(pctEncode(val, reserved))
	}
}

// pctEncode percent-encodes every byte outside the unreserved set, and
// outside the reserved set too unless reserved is set (where an existing
// %XX triplet is kept).
func pctEncode(s string, reserved bool) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte("-._~", c) >= 0:
			b.WriteByte(c)
		case reserved && strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0:
			b.WriteByte(c)
		case reserved && c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
