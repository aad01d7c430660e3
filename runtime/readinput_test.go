package runtime

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// FuzzReadInput: the read input written by hand is valid JSON that
// decodes, as the guest's strict parser must, to exactly the request
// encoding/json would have sent, for every valid UTF-8 URI (Read refuses
// the rest before encoding).
func FuzzReadInput(f *testing.F) {
	for _, s := range []string{"file:///a.txt", `x:"q"`, `x:\b\`, "x:\x00\x01\x1f\x7f", "x:é€😀", "x:\u2028<&>", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		if !utf8.ValidString(uri) {
			return
		}
		in := readInput(uri)
		require.True(t, json.Valid(in), "%s", in)
		var got abi.ReadRequest
		require.NoError(t, abi.Decode(in, &got)) // the host's strict decoder
		require.Equal(t, uri, got.URI)
		want, err := json.Marshal(abi.ReadRequest{URI: uri})
		require.NoError(t, err)
		var viaStd abi.ReadRequest
		require.NoError(t, json.Unmarshal(want, &viaStd))
		require.Equal(t, viaStd, got)
	})
}
