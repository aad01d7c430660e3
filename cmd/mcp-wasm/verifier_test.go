package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy"
)

// TestMain builds the signature verifier and points mcp-wasm at it
// (sigpolicy.VerifierEnv), so that the in-process commands here verify as
// the installed binary does: through mcp-wasm-verify, with nothing of
// Sigstore linked into this test binary (whose benchmarks then measure
// the product as built).
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcp-wasm-verify")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin := filepath.Join(dir, sigpolicy.VerifierName)
	if out, err := exec.Command("go", "build", "-o", bin, "../mcp-wasm-verify").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build %s: %v\n%s", sigpolicy.VerifierName, err, out)
		os.Exit(1)
	}
	os.Setenv(sigpolicy.VerifierEnv, bin)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
