package mcpw

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// stdJSON is the reference: encoding/json without HTML escaping and without
// the trailing newline, which is what the SDK used to send.
func stdJSON(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// stringSeeds cover every escape, every word-loop boundary and the UTF-8
// edge cases encoding/json treats specially.
var stringSeeds = []string{
	"", "a", "abcdefg", "abcdefgh", "abcdefghi",
	strings.Repeat("x", 31), strings.Repeat("x", 32), strings.Repeat("x", 33), strings.Repeat("x", 1024),
	`"`, `\`, "\x00", "\x1f", "\x7f", " ", "\b\f\n\r\t", "<&>'",
	"abcdefghijklmno\n", strings.Repeat("abcdefghijklmno\n", 64),
	"é", "日本語のテキスト", "\u2028", "\u2029", "a\u2028b\u2029c", "\uFFFD",
	"\xff", "a\xffb", "\xe2\x80", "\xe2\x80\xa8x", "\xed\xa0\x80", "\xc0\xaf", "\xf4\x90\x80\x80",
	strings.Repeat("é", 40) + `"` + strings.Repeat("z", 40) + "\xff",
	strings.Repeat("y", 40) + "\x01" + strings.Repeat("y", 7),
}

func TestAppendMemberMatchesEncodingJSON(t *testing.T) {
	for _, s := range stringSeeds {
		require.Equal(t, string(stdJSON(t, s)), string(appendMember(nil, "", s)), "input %q", s)
	}
}

func TestAppendMemberRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "Z", " ", `"`, `\`, "\n", "\x00", "\x7f", "é", "\u2028", "\xff", "\xe2", "日", "\t", "/"}
	for range 2000 {
		var b strings.Builder
		n := rng.IntN(80)
		for range n {
			if rng.IntN(3) == 0 {
				b.WriteString(alphabet[rng.IntN(len(alphabet))])
			} else {
				b.WriteByte(byte('a' + rng.IntN(26)))
			}
		}
		s := b.String()
		require.Equal(t, string(stdJSON(t, s)), string(appendMember(nil, "", s)), "input %q", s)
	}
}

func FuzzAppendMember(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := appendMember([]byte("prefix"), "", s)
		require.Equal(t, "prefix"+string(stdJSON(t, s)), string(got))
	})
}
