package sqliteprov

import (
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// Resource views of an object: its DDL, its description, its rows.
const (
	viewDDL         = ""
	viewDescription = "description"
	viewRows        = "rows"
)

// escape percent-encodes every byte but RFC 3986's unreserved characters,
// exactly as a level-1 template expansion {name} does, so that a listed
// URI and the expansion of a completed name are the same string.
func escape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// unescape decodes percent-escapes; ok is false for a malformed one.
func unescape(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) || unhex(s[i+1]) < 0 || unhex(s[i+2]) < 0 {
			return "", false
		}
		b.WriteByte(byte(unhex(s[i+1])<<4 | unhex(s[i+2])))
		i += 2
	}
	return b.String(), true
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// summaryURI is the database's own resource.
func summaryURI(db string) string { return uriPrefix + db + "/" }

// objectURI names a view of an object.
func objectURI(db, kind, name, view string) string {
	u := uriPrefix + db + "/" + kind + "/" + escape(name)
	if view != "" {
		u += "/" + view
	}
	return u
}

// target is what a URI names.
type target struct {
	db   string
	kind string // "" for the summary
	name string
	view string
}

// parseURI splits a URI of this provider; an error is invalid_params for a
// malformed URI and not_found for one that cannot name anything.
func parseURI(uri string) (target, error) {
	rest, ok := strings.CutPrefix(uri, uriPrefix)
	if !ok || len(uri) > abi.MaxURILength {
		return target{}, mcpw.InvalidParams("not a sqlite://DATABASE/... URI")
	}
	if strings.ContainsAny(rest, "?#") {
		return target{}, mcpw.InvalidParams("a sqlite URI has no query or fragment")
	}
	db, path, _ := strings.Cut(rest, "/")
	t := target{db: strings.ToLower(db)}
	if path == "" {
		return t, nil
	}
	parts := strings.Split(path, "/")
	if len(parts) < 2 || len(parts) > 3 {
		return target{}, mcpw.NotFound("no resource at this path: use sqlite://DATABASE/KIND/NAME[/description]")
	}
	t.kind = parts[0]
	name, ok := unescape(parts[1])
	if !ok {
		return target{}, mcpw.InvalidParams("a malformed percent-escape in the object name")
	}
	t.name = name
	if len(parts) == 3 {
		t.view = parts[2]
		if t.view != viewDescription && t.view != viewRows {
			return target{}, mcpw.NotFound("no view %q of an object: use description or rows", clip(t.view))
		}
	}
	return t, nil
}
