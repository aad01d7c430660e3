package egress

import (
	"net/url"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCheckURLAmbiguous: every path a server could read differently from
// the allowlist is refused with its reason; ordinary paths and queries pass.
func TestCheckURLAmbiguous(t *testing.T) {
	refused := map[string]string{
		"http://h/api/..;/admin":               "';'",
		"http://h/api;x=1/y":                   "';'",
		"http://h/api/%3b/y":                   "encoded ';'",
		"http://h/api/%252e%252e/admin":        "encoded '%'",
		"http://h/api/%252F":                   "encoded '%'",
		"http://h/api/%2e%2e/admin":            "encoded '.'",
		"http://h/api/%2E./admin":              "encoded '.'",
		"http://h/api/x%2fy":                   "encoded '/'",
		"http://h/api/%5c..%5cadmin":           "encoded '\\'",
		"http://h/api\\..\\admin":              "encoded '\\'", // net/url escapes it to %5C
		"http://h/api//admin":                  "empty segment",
		"http://h//api/x":                      "empty segment",
		"http://h/api/../admin":                "dots and spaces only",
		"http://h/api/./x":                     "dots and spaces only",
		"http://h/api/.../x":                   "dots and spaces only",
		"http://h/api/..%20/admin":             "dots and spaces only",
		"http://h/api/.%20./admin":             "dots and spaces only",
		"http://h/api/%00":                     "control character",
		"http://h/api/%0a":                     "control character",
		"http://h/api/%7f":                     "control character",
		"http://h/api/%c0%ae%c0%ae/admin":      "UTF-8",
		"http://h/api/%ff":                     "UTF-8",
		"http://h/api/%EF%BC%8E%EF%BC%8E/adm":  "U+FF0E",
		"http://h/api/‥/admin":                 "U+2025",
		"http://h/api/x／..／admin":              "U+FF0F",
		"http://h/api/..︔/admin":               "U+FE14",
		"http://u:p@h/api/x":                   "userinfo",
		"http://u@h/api/x":                     "userinfo",
		"http://:@h/api/x":                     "userinfo",
		"http://h/api/x?a b":                   "query has a space",
		"http:opaque":                          "absolute URL",
		"ftp://h/api/":                         "scheme",
		"https://b\u00fccher.de/":              "ASCII",
		"http://h/api/%e2%80%a5/admin":         "U+2025",
		"http://h/api/x%EF%BC%BC..%EF%BC%BCy/": "U+FF3C",
	}
	for raw, why := range refused {
		u, err := url.Parse(raw)
		require.NoError(t, err, raw)
		err = checkURL(u)
		require.Error(t, err, raw)
		require.Contains(t, err.Error(), why, raw)
	}
	// net/url refuses a bad escape; checkPath does not rely on it.
	require.ErrorContains(t, checkPath("/api/%2"), "starts no escape")
	require.ErrorContains(t, checkPath("api/x"), "does not start with '/'")
	for _, raw := range []string{
		"http://h/api/x",
		"http://h/api/",
		"http://h",
		"http://h/api/a%20b",
		"http://h/api/a b",
		"http://h/api/caf%C3%A9",
		"http://h/api/日本/語",
		"http://h/api/%E6%97%A5",
		"http://h/api/x.json",
		"http://h/api/.well-known/x",
		"http://h/api/..x/y..",
		"http://h/api/a%2Cb%3A%40%21",
		"http://h/api/x?q=a%20b&y=1;2&z=../../admin&w=%2e%2e",
		"http://h/api/x?redirect=/a//b",
		"http://h/api/%3F%23",
		"http://h/api/x#frag",
		"https://h:8443/api/x",
	} {
		u, err := url.Parse(raw)
		require.NoError(t, err, raw)
		require.NoError(t, checkURL(u), raw)
	}
}

// serverViews are normalizations a server may apply to an escaped path
// before it serves it: each takes and returns a path. Under every
// combination of them, an accepted path must stay under the prefix.
var serverViews = []struct {
	name string
	fn   func(string) string
}{
	{"decode again", func(p string) string { return unescape(p) }},
	{"strip ;params", func(p string) string {
		segs := strings.Split(p, "/")
		for i, s := range segs {
			segs[i], _, _ = strings.Cut(s, ";")
		}
		return strings.Join(segs, "/")
	}},
	{"backslash is a slash", func(p string) string { return strings.ReplaceAll(p, "\\", "/") }},
	{"NFKC", func(p string) string {
		var b strings.Builder
		for _, r := range p {
			if n, ok := nfkcSeparators[r]; ok {
				b.WriteString(n)
			} else {
				b.WriteRune(r)
			}
		}
		return b.String()
	}},
	{"overlong UTF-8", func(p string) string {
		return strings.NewReplacer("\xc0\xae", ".", "\xc0\xaf", "/", "\xc1\x9c", "\\").Replace(p)
	}},
	{"Windows trims trailing dots and spaces", func(p string) string {
		segs := strings.Split(p, "/")
		for i, s := range segs {
			if t := strings.TrimRight(s, ". "); t != "" || s == "" {
				segs[i] = t
			} else {
				segs[i] = strings.Repeat(".", min(len(s), 2)) // "..." and ".. " act as ".."
			}
		}
		return strings.Join(segs, "/")
	}},
	{"case-insensitive", strings.ToLower},
}

// unescape percent-decodes p leniently, as a lax server would: invalid
// escapes stay as they are.
func unescape(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '%' && i+2 < len(p) && isHex(p[i+1]) && isHex(p[i+2]) {
			b.WriteByte(unhex(p[i+1])<<4 | unhex(p[i+2]))
			i += 2
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// serverPath is what a server applying the views in mask (a bit per
// serverViews entry) serves for the escaped path p: decoded once, the
// views applied, then dot segments and repeated slashes resolved.
func serverPath(p string, mask int) string {
	if p == "" {
		p = "/"
	}
	p = unescape(p)
	for i, v := range serverViews {
		if mask&(1<<i) != 0 {
			p = v.fn(p)
		}
	}
	return path.Clean("/" + p)
}

// FuzzCheckURL: whatever a URL, if the allowlist lets it through, every
// server's reading of its path stays under the granted prefix. The seeds
// (and testdata/fuzz/FuzzCheckURL) hold the attacks of TestCheckURLAmbiguous.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"http://h/api/x", "http://h/api/..;/admin", "http://h/api/%252e%252e/admin", "http://h/api/%2e%2e/admin",
		"http://h/api\\..\\admin", "http://h/api//admin", "http://h/api/.../x", "http://h/api/..%20/x",
		"http://h/api/%c0%ae%c0%ae/x", "http://h/api/‥/x", "http://h/api/x／..／y", "http://u:p@h/api/x",
		"http://h/api/a%20b?q=1;2", "http://h/api/日本", "http://h/apix", "http://h/api", "http://h/API/x",
	} {
		f.Add(s)
	}
	var rules []rule
	for _, prefix := range []string{"http://h/api/", "http://h/api", "http://h/"} {
		r, err := parseRule(Rule{Prefix: prefix})
		require.NoError(f, err)
		rules = append(rules, r)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse(raw)
		if err != nil || checkURL(u) != nil {
			return
		}
		for _, r := range rules {
			if !r.allows("GET", u) {
				continue
			}
			for mask := range 1 << len(serverViews) {
				got, prefix := serverPath(u.EscapedPath(), mask), serverPath(r.path, mask)
				under := prefix == "/" || got == prefix || strings.HasPrefix(got, prefix+"/")
				require.True(t, under, "%q allowed by %s, but a server (views %b) serves %q, outside %q", raw, r.path, mask, got, prefix)
			}
		}
	})
}
