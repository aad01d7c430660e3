package server

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func Test_checkURI(t *testing.T) {
	tests := []struct {
		name, raw, want, wantErr string
	}{
		{"plain", "notes:///a/b.txt", "notes:///a/b.txt", ""},
		{"scheme and host lowered", "HTTPS://Example.COM/A/B?Q=1", "https://example.com/A/B?Q=1", ""},
		{"opaque", "urn:isbn:0451450523", "urn:isbn:0451450523", ""},
		{"port kept", "http://LOCALHOST:8080/x", "http://localhost:8080/x", ""},
		{"encoded space kept", "file:///a%20b", "file:///a%20b", ""},
		{"unicode", "notes:///caf\u00e9", "notes:///caf\u00e9", ""},
		{"empty", "", "", "empty"},
		{"no scheme", "/etc/passwd", "", "no scheme"},
		{"space", "notes:///a b", "", "control character or space"},
		{"newline", "notes:///a\nb", "", "control character or space"},
		{"nul", "notes:///a\x00b", "", "control character or space"},
		{"c1 control", "notes:///a\u0085b", "", "control character or space"},
		{"invalid utf-8", "notes:///\xff", "", "not UTF-8"},
		{"too long", "notes:///" + strings.Repeat("a", 2048), "", "longer than"},
		{"dotdot", "file:///srv/../etc/passwd", "", "'..' path segments"},
		{"dot", "file:///srv/./a", "", "'..' path segments"},
		{"trailing dotdot", "file:///srv/..", "", "'..' path segments"},
		{"encoded dotdot", "file:///srv/%2e%2e/etc/passwd", "", "'..' path segments"},
		{"mixed-case encoded dot", "file:///srv/%2E./x", "", "'..' path segments"},
		{"opaque dotdot", "notes:a/../b", "", "'..' path segments"},
		{"encoded slash", "file:///srv/a%2Fb", "", "%2F"},
		{"encoded slash lower", "file:///srv/..%2fetc", "", "%2F"},
		{"encoded backslash", "file:///srv/a%5cb", "", "%5C"},
		{"encoded nul", "file:///srv/a%00.txt", "", "%00"},
		{"backslash", `file:///srv/a\..\b`, "", "backslash"},
		{"userinfo", "https://user:pw@example.com/x", "", "userinfo"},
		{"fragment", "notes:///a#frag", "", "fragment"},
		{"bad escape", "file:///a%zz", "", "does not parse"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, u, err := checkURI(tc.raw)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, strings.ToLower(u.Scheme), u.Scheme)
		})
	}
}

// FuzzCheckURI: an accepted URI comes back with its scheme and authority
// lower-cased and every other byte as sent, and with the parse of exactly
// that string, whether or not it had to be lowered.
func FuzzCheckURI(f *testing.F) {
	for _, s := range []string{"file:///tmp/f", "NOTES:///hello", "notes:x", "Notes:X/Y", "https://Example.COM/A?b#c",
		"s://h", "s://H:80/p?q", "a:b/../c", "file:///%2e%2e/x", "x://user@h/", "%41:b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		norm, u, err := checkURI(raw)
		if err != nil {
			return
		}
		scheme, rest, _ := strings.Cut(raw, ":")
		want := strings.ToLower(scheme) + ":" + rest
		if auth, ok := strings.CutPrefix(rest, "//"); ok {
			end := strings.IndexAny(auth, "/?#")
			if end < 0 {
				end = len(auth)
			}
			want = strings.ToLower(scheme) + "://" + strings.ToLower(auth[:end]) + auth[end:]
		}
		require.Equal(t, want, norm)
		parsed, err := url.Parse(norm)
		require.NoError(t, err)
		require.Equal(t, parsed, u, "the parse of %q", norm)
	})
}
