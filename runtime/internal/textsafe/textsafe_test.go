package textsafe

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// TestSanitize_atMostNBytes: the result is never longer than n bytes,
// ellipsis included, and is cut at a rune boundary.
func TestSanitize_atMostNBytes(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"abcdef", 6, "abcdef"},
		{"abcdef", 5, "ab…"},
		{"abcdef", 4, "a…"},
		{"abcdef", 3, "…"},
		{"abcdef", 2, "ab"},
		{"abcdef", 0, ""},
		{"ééé", 5, "é…"},               // 2-byte runes: "é" + "…" is 5 bytes
		{"ééé", 4, "…"},                // "é…" would be 5
		{"\x1b\x1b\x1b", 7, "\ufffd…"}, // each control becomes 3 bytes
		{"日本語", 8, "日…"},
		{"a\nb", -1, ""},
	} {
		got := Sanitize(tt.in, tt.n)
		require.Equal(t, tt.want, got, "Sanitize(%q, %d)", tt.in, tt.n)
		require.LessOrEqual(t, len(got), max(tt.n, 0))
	}
}

// FuzzSanitize: whatever the text and bound, the result is valid UTF-8 of
// at most n bytes with no control or format character.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"abcdef", "ééé", "\x1b[2J", "a\u202eb", "\xff\xfe", strings.Repeat("日", 100)} {
		f.Add(s, 4)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 1024
		got := Sanitize(s, n)
		require.LessOrEqual(t, len(got), max(n, 0))
		require.True(t, utf8.ValidString(got))
		for _, r := range got {
			require.False(t, r < 0x20 || r == 0x7f, "control %U in %q", r, got)
		}
		if len(s) <= n && printableASCII(s) {
			require.Equal(t, s, got, "short clean text is kept")
		}
	})
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
