// Package rust_test runs the Rust SDK's own tests (cargo test: the JSON
// codec, payload encoding, result checks, the call path with a native host)
// as part of go test, with the toolchain internal/testguest finds.
package rust_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
)

func TestRustSDK(t *testing.T) {
	tc := testguest.RequireRust(t)
	cmd := exec.Command(tc.Cargo, "test", "--offline", "--quiet")
	cmd.Dir = filepath.Join(testguest.Root(), "guests", "rust")
	cmd.Env = testguest.RustEnv(tc, filepath.Join(testguest.Root(), "build", "testguest", "cargo-test"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cargo test in guests/rust: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
