package catalog_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi/checkkit"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
)

// TestCheckEverySDK runs `mcp-wasm check --json` (the real binary) on the
// catalog of every SDK: each must pass every rule, none skipped, with the
// same resources, templates and reads counted.
func TestCheckEverySDK(t *testing.T) {
	bin := testguest.Binary(t)
	for _, s := range sdks {
		t.Run(s.name, func(t *testing.T) {
			wasm := s.build(t)
			out, err := exec.Command(bin, "check", "--json", "--cache-dir", filepath.Join(t.TempDir(), "cache"), wasm).Output()
			require.NoError(t, err, "%s", out)
			var rep checkkit.Report
			require.NoError(t, json.Unmarshal(out, &rep))
			require.True(t, rep.Passed)
			require.Len(t, rep.Checks, 10)
			for _, c := range rep.Checks {
				require.Equal(t, checkkit.Pass, c.Status, "%s: %+v", c.Name, c)
			}
			require.Equal(t, len(itemIDs), rep.Stats.Resources)
			require.Equal(t, 1, rep.Stats.Templates)
			require.Equal(t, len(itemIDs)+1, rep.Stats.Reads)
		})
	}
}
