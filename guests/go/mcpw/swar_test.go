package mcpw

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// classes and their byte-at-a-time definitions.
var classes = []struct {
	name string
	c    *byteClass
	in   func(b byte) bool
}{
	{"jsonSafe", &jsonSafe, func(b byte) bool { return b >= 0x20 && b < 0x80 && b != '"' && b != '\\' }},
	{"printable", &printable, func(b byte) bool { return b >= 0x20 && b <= 0x7e }},
	{"uriSafe", &uriSafe, func(b byte) bool { return b > 0x20 && b < 0x7f && !strings.ContainsRune("#?\\%", rune(b)) }},
	{"mimeType", &mimeType, func(b byte) bool { return b > 0x20 && b < 0x7f && b != ';' }},
	{"decimal", &decimal, func(b byte) bool { return b >= '0' && b <= '9' }},
}

func isBase64Byte(b byte) bool {
	return b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '+' || b == '/'
}

// TestOutsideIsExactPerLane checks every byte value in every lane, next to
// neighbours that could carry or borrow into it.
func TestOutsideIsExactPerLane(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, cl := range classes {
		t.Run(cl.name, func(t *testing.T) {
			for v := range 256 {
				for lane := range 8 {
					for range 8 {
						var w [8]byte
						for i := range w {
							w[i] = byte(rng.Uint32())
						}
						w[lane] = byte(v)
						word := binary.LittleEndian.Uint64(w[:])
						m := cl.c.outside(word)
						b64 := base64Outside(word)
						for i := range w {
							require.Equal(t, !cl.in(w[i]), m>>(8*i+7)&1 == 1, "byte %#x lane %d", w[i], i)
							require.Equal(t, !isBase64Byte(w[i]), b64>>(8*i+7)&1 == 1, "base64 byte %#x lane %d", w[i], i)
						}
					}
				}
			}
		})
	}
}

func refSpan(s string, in func(byte) bool) int {
	for i := 0; i < len(s); i++ {
		if !in(s[i]) {
			return i
		}
	}
	return len(s)
}

func TestSpanAndAllBase64(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 3000 {
		b := []byte(strings.Repeat("AbZz09+/", 8)[:rng.IntN(64)])
		if len(b) > 0 && rng.IntN(2) == 0 {
			b[rng.IntN(len(b))] = byte(rng.Uint32())
		}
		s := string(b)
		for _, cl := range classes {
			require.Equal(t, refSpan(s, cl.in), cl.c.span(s, 'a'), "%s span of %q", cl.name, s)
		}
		require.Equal(t, refSpan(s, isBase64Byte) == len(s), allBase64(s), "allBase64(%q)", s)
	}
}

func FuzzSpan(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, cl := range classes {
			require.Equal(t, refSpan(s, cl.in), cl.c.span(s, 'a'))
		}
		require.Equal(t, refSpan(s, isBase64Byte) == len(s), allBase64(s))
		require.Equal(t, abi.ValidBase64(s), base64OK(s))
	})
}
