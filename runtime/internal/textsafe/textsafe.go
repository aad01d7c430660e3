// Package textsafe makes untrusted text (a guest's, or an error that may
// carry a guest's words) safe to log or show. It never interprets the text.
package textsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sanitize makes guest-supplied text safe to log or show: invalid UTF-8
// and control characters become U+FFFD (newlines and tabs become spaces),
// and the result is at most n bytes: longer text is cut at a rune boundary
// and ends with "…", the ellipsis counted in the n.
func Sanitize(s string, n int) string {
	n = max(n, 0)
	var b strings.Builder
	for i, r := range s {
		if b.Len() > n {
			break // it will be cut: the rest does not matter
		}
		switch {
		case r == utf8.RuneError && len(s[i:]) > 0:
			b.WriteRune(utf8.RuneError)
		case r == '\n' || r == '\t' || r == '\r':
			b.WriteByte(' ')
		case !unicode.IsPrint(r) && r != ' ':
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
	}
	out := b.String()
	if len(out) <= n {
		return out
	}
	const ellipsis = "…"
	cut := n - len(ellipsis)
	if cut < 0 { // no room for the ellipsis
		cut = n
	}
	for cut > 0 && !utf8.RuneStart(out[cut]) {
		cut--
	}
	if n < len(ellipsis) {
		return out[:cut]
	}
	return out[:cut] + ellipsis
}

// FirstLine is the first line of s, at most n bytes of it.
func FirstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n]
	}
	return s
}
