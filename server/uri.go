package server

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// errHostileURI marks a URI refused before any provider sees it.
var errHostileURI = errors.New("uri refused")

// encodedSeparators are percent-encodings that could smuggle a path separator
// or a string terminator past a provider's own parsing.
var encodedSeparators = []string{"%2f", "%5c", "%00"}

// checkURI validates a client-supplied resource URI and returns it
// normalized (scheme and host in lower case) with its parsed form. It
// refuses, before any provider sees them: what abi.ParseURI refuses (empty,
// over abi.MaxURILength, invalid UTF-8, control characters, spaces, no
// scheme), userinfo, fragments, backslashes, percent-encoded '/', '\' and
// NUL, and '.' or '..' segments (also percent-encoded) in the path.
func checkURI(raw string) (string, *url.URL, error) {
	u, err := abi.ParseURI(raw)
	if err != nil {
		return "", nil, err
	}
	switch {
	case u.User != nil:
		return "", nil, fmt.Errorf("%w: userinfo is not allowed", errHostileURI)
	case strings.Contains(raw, "#"):
		return "", nil, fmt.Errorf("%w: a fragment is not part of a resource uri", errHostileURI)
	case strings.Contains(raw, `\`):
		return "", nil, fmt.Errorf("%w: backslash is not allowed", errHostileURI)
	}
	lower := strings.ToLower(raw)
	for _, sep := range encodedSeparators {
		if strings.Contains(lower, sep) {
			return "", nil, fmt.Errorf("%w: percent-encoded %s is not allowed", errHostileURI, strings.ToUpper(sep))
		}
	}
	if hasDotSegment(u) {
		return "", nil, fmt.Errorf("%w: '.' and '..' path segments are not allowed", errHostileURI)
	}
	norm := normalize(raw, u)
	if norm == raw { // as most are: the parse already made is the one
		return raw, u, nil
	}
	nu, err := url.Parse(norm)
	if err != nil {
		return "", nil, fmt.Errorf("%w: does not parse after normalization", errHostileURI)
	}
	return norm, nu, nil
}

// hasDotSegment reports whether the path (or the opaque part of a URI such
// as notes:a/../b) has a "." or ".." segment, before or after decoding.
func hasDotSegment(u *url.URL) bool {
	p := u.Path
	if u.Opaque != "" {
		dec, err := url.PathUnescape(u.Opaque)
		if err != nil {
			return true
		}
		p = dec
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// normalize lower-cases the scheme and the authority of raw, leaving every
// other byte as the client sent it (re-encoding could change which resource
// a provider resolves).
func normalize(raw string, u *url.URL) string {
	scheme := strings.ToLower(u.Scheme) // net/url lowers it already; raw may not
	rest := raw[len(u.Scheme)+1:]
	same := scheme == raw[:len(u.Scheme)]
	if !strings.HasPrefix(rest, "//") {
		if same {
			return raw
		}
		return scheme + ":" + rest
	}
	auth := rest[2:]
	end := strings.IndexAny(auth, "/?#")
	if end < 0 {
		end = len(auth)
	}
	if host := strings.ToLower(auth[:end]); !same || host != auth[:end] {
		return scheme + "://" + host + auth[end:]
	}
	return raw
}
