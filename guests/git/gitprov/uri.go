package gitprov

import (
	"net/url"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// Resource kinds, the first path segment.
const (
	kindRefs   = "refs"
	kindBlob   = "blob"
	kindTree   = "tree"
	kindLog    = "log"
	kindCommit = "commit"
)

// target is a parsed git:// URI.
type target struct {
	repo, kind, ref, path string
}

// parseURI splits git://REPO/KIND[/REF[/PATH]]. REF is one segment,
// unescaped; PATH's segments are unescaped one by one and may not be
// empty, "." or "..", nor hold an escaped "/" or a NUL.
func parseURI(uri string) (target, error) {
	rest, ok := strings.CutPrefix(uri, "git://")
	if !ok {
		if len(uri) >= 6 && strings.EqualFold(uri[:6], "git://") {
			rest = uri[6:]
		} else {
			return target{}, mcpw.InvalidParams("not a git:// URI")
		}
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		return target{}, mcpw.InvalidParams("git:// URIs take no query or fragment")
	}
	repo, rest, _ := strings.Cut(rest, "/")
	kind, rest, hasRest := strings.Cut(rest, "/")
	t := target{repo: repo, kind: kind}
	switch kind {
	case kindRefs:
		if hasRest {
			return t, mcpw.NotFound("git://%s/refs has nothing below it", repo)
		}
		return t, nil
	case kindBlob, kindTree, kindLog, kindCommit:
	default:
		return t, mcpw.NotFound("unknown kind %q: want refs, blob, tree, log or commit", kind)
	}
	if !hasRest {
		return t, mcpw.NotFound("%s needs a ref", kind)
	}
	rawRef, rawPath, hasPath := strings.Cut(rest, "/")
	ref, err := url.PathUnescape(rawRef)
	if err != nil || ref == "" || strings.ContainsAny(ref, "\x00") {
		return t, mcpw.InvalidParams("bad ref segment")
	}
	t.ref = ref
	if hasPath && (rawPath != "" || kind != kindTree) {
		if kind == kindLog || kind == kindCommit {
			return t, mcpw.NotFound("%s takes no path", kind)
		}
		if kind == kindTree { // "dir/" as completion offers it
			rawPath = strings.TrimSuffix(rawPath, "/")
		}
		var parts []string
		for _, seg := range strings.Split(rawPath, "/") {
			s, err := url.PathUnescape(seg)
			if err != nil || s == "" || s == "." || s == ".." || strings.ContainsAny(s, "/\x00") {
				return t, mcpw.InvalidParams("bad path segment")
			}
			parts = append(parts, s)
		}
		t.path = strings.Join(parts, "/")
	}
	if kind == kindBlob && t.path == "" {
		return t, mcpw.NotFound("blob needs a path")
	}
	return t, nil
}

// refURI builds git://REPO/KIND/REF[/PATH].
func refURI(repo, kind, ref, p string) string {
	u := "git://" + repo + "/" + kind + "/" + escapeSegment(ref)
	if p != "" {
		u += "/" + escapePath(p)
	}
	return u
}

// escapeSegment escapes one segment: "/" too, and everything not printable
// ASCII.
func escapeSegment(s string) string { return url.PathEscape(s) }

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}
