package defaultprovider

import (
	"bytes"
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
)

// TestEmbeddedMatchesSource rebuilds guests/files and compares it with the
// embedded bytes, so the default provider is always what its source says.
func TestEmbeddedMatchesSource(t *testing.T) {
	if runtime.Version() != GoVersion() {
		t.Skipf("embedded module was built by %s, this is %s: reproducibility needs the same toolchain (run make default-provider to refresh)", GoVersion(), runtime.Version())
	}
	built, err := os.ReadFile(testguest.Go(t, "guests/files"))
	require.NoError(t, err)
	require.True(t, bytes.Equal(built, Wasm()), "cmd/mcp-wasm/defaultprovider/files.wasm is stale: run make default-provider and commit it")
}
