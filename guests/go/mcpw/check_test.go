package mcpw

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// checkPool holds strings that are valid for some field and nearly valid
// for others, so random results are often wholly valid.
var checkPool = []string{
	"", "x", "fake:///a", "fake:a", "fake:///a%20b", "fake:///a%2", "fake:///a%zz", "fake://host/x", "fake:////x",
	"FAKE:///a", "fake:///a b", "fake:///a?q", "fake:///a#f", "fake:///\\", "fake:", "other:x", "fake:///é",
	"fake:///" + strings.Repeat("a", abi.MaxURILength), "text/plain", "text/plain; charset=utf-8", "te xt/plain",
	"text;/plain", "/plain", "text/", "text/pl\x01ain", "2025-03-14T15:09:26Z", "2025-02-28T23:59:59.123456789+01:00",
	"2025-02-30T00:00:00Z", "2024-02-29T00:00:00Z", "2025-13-01T00:00:00Z", "2025-03-14T24:00:00Z",
	"2025-03-14T15:09:26.Z", "2025-03-14 15:09:26Z", "2025-03-14T15:09:26+24:00", "2025-03-14T15:09:26-07:60",
	"2025-03-14T15:09:26z", "2025-03-14T15:09:26", "/025-03-14T15:09:26Z", "2025-03-14T15:09:26+01:00x",
	"user", "assistant", "bot", "public", "private", "AAEC", "AA==", "AB==", "AAE=", "AAF=", "A===", "====", "#AAA",
	"https://x/icon.png", "data:image/png;base64,AA", "http://x", "light", "dark", "dim", "fake:///{id}",
	"fake:///{id}\x7f", "item", strings.Repeat("n", abi.MaxTextField+1), strings.Repeat("c", abi.MaxCursorLength+1),
}

func TestRFC3339OK(t *testing.T) {
	for _, s := range checkPool {
		if rfc3339OK(s) {
			_, err := time.Parse(time.RFC3339Nano, s)
			require.NoError(t, err, s)
		}
	}
	require.True(t, rfc3339OK("2025-02-28T23:59:59.123456789+01:00"))
	require.False(t, rfc3339OK("2025-02-29T00:00:00Z"), "day 29 is left to time.Parse")
}

func FuzzCheckerStrings(f *testing.F) {
	for _, s := range checkPool {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := newChecker(space)
		if c.owned(s) {
			require.True(t, space.OwnsString(s), "owned(%q)", s)
		}
		if rfc3339OK(s) {
			_, err := time.Parse(time.RFC3339Nano, s)
			require.NoError(t, err)
		}
		if c.mimeOK(s) {
			r := abi.ReadResult{Contents: []abi.Content{{URI: "fake:x", MIMEType: s, Text: new("")}}}
			require.NoError(t, r.Validate(space))
		}
	})
}
