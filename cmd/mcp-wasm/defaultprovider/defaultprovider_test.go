package defaultprovider

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
)

// TestEmbeddedMatchesSource rebuilds guests/cfiles and compares it with the
// embedded bytes, so the default provider is always what its source says.
func TestEmbeddedMatchesSource(t *testing.T) {
	testguest.RequireClang(t)
	out, err := exec.Command("clang", "--version").Output()
	require.NoError(t, err)
	if have, _, _ := strings.Cut(string(out), "\n"); strings.TrimSpace(have) != ClangVersion() {
		t.Skipf("embedded module was built by %q, this is %q: reproducibility needs the same compiler (run make default-provider to refresh)", ClangVersion(), have)
	}
	built, err := os.ReadFile(testguest.C(t, "cfiles", "guests/c/mcpw.c", "guests/cfiles/cfiles.c"))
	require.NoError(t, err)
	require.True(t, bytes.Equal(built, Wasm()), "cmd/mcp-wasm/defaultprovider/files.wasm is stale: run make default-provider and commit it")
}
