package filesprov

import (
	"io/fs"
	"net/url"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// maxEscapedPath bounds the escaped relative path of a listed file, so that
// its cursor ("p:" + escaped path) fits abi.MaxCursorLength. Longer paths
// are not listed.
const maxEscapedPath = abi.MaxCursorLength - len(cursorPrefix)

// escapePath escapes each segment of a relative slash path for a URI.
func escapePath(rel string) string {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// uriFor returns the file:/// URI of a relative path.
func uriFor(rel string) string { return uriPrefix + escapePath(rel) }

// unescapePath is the inverse of escapePath. It rejects what could smuggle
// a path out of the mount or confuse one: empty, "." and ".." segments,
// encoded separators (%2F, %5C), backslashes and NUL, escaped or not.
func unescapePath(escaped string) (string, error) {
	if escaped == "" {
		return "", mcpw.InvalidParams("empty path")
	}
	if strings.ContainsAny(escaped, "\\\x00") {
		return "", mcpw.InvalidParams("path contains a backslash or NUL")
	}
	upper := strings.ToUpper(escaped)
	for _, bad := range []string{"%2F", "%5C", "%00"} {
		if strings.Contains(upper, bad) {
			return "", mcpw.InvalidParams("path contains an encoded separator or NUL (%s)", bad)
		}
	}
	segs := strings.Split(escaped, "/")
	for i, s := range segs {
		u, err := url.PathUnescape(s)
		if err != nil {
			return "", mcpw.InvalidParams("path segment %d has a bad escape", i+1)
		}
		if u == "" || u == "." || u == ".." {
			return "", mcpw.InvalidParams("path has an empty, '.' or '..' segment")
		}
		segs[i] = u
	}
	rel := strings.Join(segs, "/")
	if !fs.ValidPath(rel) {
		return "", mcpw.InvalidParams("not a valid relative path")
	}
	return rel, nil
}

// relFromURI returns the relative path a file:/// URI names.
func relFromURI(uri string) (string, error) {
	escaped, ok := strings.CutPrefix(uri, uriPrefix)
	if !ok {
		return "", mcpw.InvalidParams("not a file URI of this provider: want file:///{path}")
	}
	if strings.ContainsAny(escaped, "?#") {
		return "", mcpw.InvalidParams("file URIs take no query or fragment")
	}
	return unescapePath(escaped)
}
