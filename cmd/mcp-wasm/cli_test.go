package main

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// runCLI runs the whole CLI in-process. Its compilation cache is the one
// the end-to-end tests share (as one user's runs share theirs): a cold
// compile of a 4 MB Go guest under -race on a busy 2-core machine takes
// most of the default compile timeout, once per module is enough. A test
// of the cache itself passes its own --cache-dir, which wins. The commands
// that load a module (call, inspect, check, serve) get testkit's patient
// limits first (patientArgs), which a test's own flags override.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	rest := args[1:]
	if slices.Contains([]string{"call", "inspect", "check", "serve"}, args[0]) {
		rest = patientArgs(rest)
	}
	full := append([]string{"mcp-wasm", args[0], "--cache-dir", testguest.CompileCache(), "--log-level", "warn"}, rest...)
	code := run(context.Background(), full, bytes.NewReader(nil), &out, &errb)
	return code, out.String(), errb.String()
}

func TestInspect(t *testing.T) {
	code, out, _ := runCLI(t, "inspect", testkit.Fixture("wat", "minimal.wasm"))
	require.Equal(t, 0, code)
	require.Contains(t, out, "ACCEPTED")
	require.Contains(t, out, "provider    minimal 1.0.0")

	code, out, _ = runCLI(t, "inspect", "--json", testkit.Fixture("wat", "minimal.wasm"))
	require.Equal(t, 0, code)
	var rep runtime.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.True(t, rep.Valid)
	require.Equal(t, 1, rep.ABIVersion)
	require.Equal(t, "minimal", rep.Describe.Name)
	require.Len(t, rep.Imports, 3)
}

func TestInspect_Rejected(t *testing.T) {
	code, out, _ := runCLI(t, "inspect", testkit.Fixture("hostile", "import_path_open.wasm"))
	require.Equal(t, 1, code)
	require.Contains(t, out, "REJECTED")
	require.Contains(t, out, "needs a directory grant")
	require.Contains(t, out, "--allow-dir")
}

func TestCall(t *testing.T) {
	code, out, _ := runCLI(t, "call", testkit.Fixture("wat", "minimal.wasm"), "read", "min:a")
	require.Equal(t, 0, code)
	require.Equal(t, "hello\n", out)

	code, out, _ = runCLI(t, "call", "--json", testkit.Fixture("wat", "minimal.wasm"), "read", "min:a")
	require.Equal(t, 0, code)
	require.JSONEq(t, `{"contents":[{"uri":"min:a","mimeType":"text/plain","text":"hello"}]}`, out)
}

func TestCall_Errors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"foreign uri", []string{"call", testkit.Fixture("wat", "minimal.wasm"), "read", "other:a"}, 1, "outside provider"},
		{"unsupported", []string{"call", testkit.Fixture("wat", "minimal.wasm"), "list"}, 1, "does not implement list"},
		{"unknown op", []string{"call", testkit.Fixture("wat", "minimal.wasm"), "write"}, 2, "unknown operation"},
		{"missing arg", []string{"call", testkit.Fixture("wat", "minimal.wasm"), "read"}, 2, "read takes 1"},
		{"no module", []string{"call", "/nonexistent.wasm", "list"}, 1, "no such file"},
		{"bad memory", []string{"call", "--memory", "lots", testkit.Fixture("wat", "minimal.wasm"), "list"}, 2, "--memory"},
		{"bad config", []string{"call", "--config-value", "novalue", testkit.Fixture("wat", "minimal.wasm"), "list"}, 2, "KEY=VALUE"},
		{"garbage", []string{"call", testkit.Fixture("hostile", "garbage.wasm"), "list"}, 1, "not WebAssembly"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, tc.args...)
			require.Equal(t, tc.code, code, errOut)
			require.Contains(t, errOut, tc.msg)
		})
	}
}

// TestFlagAfterArgs: a flag written after the arguments is not read by
// urfave/cli; it is refused with where to put it, never taken as an
// argument or silently dropped.
func TestFlagAfterArgs(t *testing.T) {
	for _, args := range [][]string{
		{"inspect", testkit.Fixture("wat", "minimal.wasm"), "--json"},
		{"inspect", testkit.Fixture("wat", "minimal.wasm"), "--allow-dir", "."},
		{"call", testkit.Fixture("wat", "minimal.wasm"), "read", "min:a", "--json"},
		{"call", testkit.Fixture("wat", "minimal.wasm"), "list", "--config-value=k=v"},
	} {
		code, out, errOut := runCLI(t, args...)
		require.Equal(t, 2, code, "%v: %s%s", args, out, errOut)
		require.Contains(t, errOut, "put every flag before them", "%v", args)
	}
}
