package mcpw

import (
	"encoding/base64"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEncodeBase64MatchesStdlib(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for n := range 200 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		require.Equal(t, base64.StdEncoding.EncodeToString(b), encodeBase64(b), "length %d", n)
	}
}

func FuzzEncodeBase64(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("hello, world: twelve+"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got := encodeBase64(b)
		require.Equal(t, base64.StdEncoding.EncodeToString(b), got)
		require.True(t, base64OK(got))
	})
}
