// Package assemblyscript_test runs the AssemblyScript SDK's own tests
// (node --test test/sdk.test.js: the probe provider through its real exports with a
// mock host) as part of go test.
package assemblyscript_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
)

func TestAssemblyScriptSDK(t *testing.T) {
	testguest.RequireAssemblyScript(t)
	cmd := exec.Command("node", "--test", "test/sdk.test.js")
	cmd.Dir = filepath.Join(testguest.Root(), "guests", "assemblyscript")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test in guests/assemblyscript: %v\n%s", err, out)
	}
}
