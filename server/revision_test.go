package server

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func Test_negotiate(t *testing.T) {
	tests := []struct {
		requested string
		want      revision
	}{
		{"2024-11-05", rev20241105},
		{"2025-03-26", rev20250326},
		{"2025-06-18", rev20250618},
		{"2025-11-25", rev20251125},
		{"2026-07-28", rev20251125}, // the handshake never negotiates the stateless era
		{"2099-01-01", rev20251125},
		{"2024-01-01", rev20251125},
		{"", rev20251125},
	}
	for _, tc := range tests {
		t.Run(tc.requested, func(t *testing.T) {
			require.Equal(t, tc.want, negotiate(tc.requested))
		})
	}
}

func Test_revisionFeatures(t *testing.T) {
	tests := []struct {
		rev                        revision
		stateless, title, hasIcons bool
	}{
		{rev20241105, false, false, false},
		{rev20250326, false, false, false},
		{rev20250618, false, true, false},
		{rev20251125, false, true, true},
		{rev20260728, true, true, true},
	}
	for _, tc := range tests {
		t.Run(string(tc.rev), func(t *testing.T) {
			require.Equal(t, tc.stateless, tc.rev.stateless())
			require.Equal(t, tc.title, tc.rev.hasTitle())
			require.Equal(t, tc.hasIcons, tc.rev.hasIcons())
		})
	}
}

// TestServer_mixedEras speaks a handshake revision and the stateless one on
// the same connection: each request is answered in its own era.
func TestServer_mixedEras(t *testing.T) {
	tr := newTranscript(t, newServer(t, NewConfig().WithProviders(notesProvider())))
	tr.open("2025-03-26")
	legacy := tr.call("resources/read", map[string]any{"uri": "notes:///missing"})
	require.Contains(t, string(legacy["error"]), `"code":-32002`)

	tr.version = "2026-07-28"
	modern := tr.call("resources/read", map[string]any{"uri": "notes:///missing"})
	require.Contains(t, string(modern["error"]), `"code":-32602`)
	ok := tr.call("resources/read", map[string]any{"uri": "notes:///hello"})
	require.Contains(t, string(ok["result"]), `"resultType":"complete"`)

	tr.version = "2025-03-26"
	again := tr.call("resources/read", map[string]any{"uri": "notes:///hello"})
	require.NotContains(t, string(again["result"]), `resultType`)
}
