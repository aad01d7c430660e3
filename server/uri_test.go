package server

import (
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
