package main

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// A guest with no loop at all (a recursion that calls itself twice per
// level to depth 60) is stopped at its deadline by every command. Before
// preemption by instrumentation, wazero checked the deadline at loop
// back-edges only and these commands ran until killed.

func hostileFixture(name string) string {
	return filepath.Join(testguest.Root(), "testdata", "hostile", name)
}

// runBounded runs the binary, with a patient compile timeout (these tests
// compile with no cache, and are about the deadline that stops the guest,
// not the one of the compiler), and fails the test if it is still running
// after testkit.Wait (the guest was not stopped).
func runBounded(t *testing.T, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Wait)
	defer cancel()
	args = append([]string{args[0], "--compile-timeout", testkit.Patient.String()}, args[1:]...)
	cmd := exec.CommandContext(ctx, binary(t), args...)
	out, _ := cmd.CombinedOutput()
	require.NoError(t, ctx.Err(), "mcp-wasm %s did not stop within %v", args[0], testkit.Wait)
	return string(out), cmd.ProcessState.ExitCode()
}

func TestE2E_CallStopsLoopFreeRecursion(t *testing.T) {
	t.Parallel()
	out, code := runBounded(t, "call", "--timeout", "300ms", "--cache-dir", "", hostileFixture("spin.wasm"), "read", "evil:exprec")
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "timed out")
}

func TestE2E_InspectStopsLoopFreeRecursion(t *testing.T) {
	t.Parallel()
	out, code := runBounded(t, "inspect", "--cache-dir", "", hostileFixture("exprec_describe.wasm"))
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "timed out")
}

// TestE2E_SIGTERMStopsLoopFreeRecursion: serve answers other requests while
// a loop-free guest spins, stops the guest at its deadline, and a SIGTERM
// sent meanwhile ends the process cleanly, within its drain time.
func TestE2E_SIGTERMStopsLoopFreeRecursion(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(binary(t), "serve", "--module", hostileFixture("spin.wasm"), "--timeout", "3s", "--cache-dir", "", "--log-level", "warn",
		"--compile-timeout", testkit.Patient.String(), "--init-timeout", testkit.Patient.String())
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = testWriter{t}
	require.NoError(t, cmd.Start())
	out := bufio.NewReader(stdout)
	send := func(line string) {
		_, err := io.WriteString(stdin, line+"\n")
		require.NoError(t, err)
	}
	read := func() string {
		line, err := out.ReadString('\n')
		require.NoError(t, err)
		return line
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	require.Contains(t, read(), `"id":1`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"evil:exprec"}}`)
	// While the guest spins, the server answers: the Go runtime is healthy.
	send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	require.Contains(t, read(), `"id":3`)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))

	line := read()
	require.Contains(t, line, `"id":2`, "the spinning call is answered")
	require.Contains(t, line, `-32603`)
	require.False(t, strings.Contains(line, "evil"), "no provider detail reaches the client: %s", line)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, "a clean shutdown exits 0")
	case <-time.After(testkit.Wait):
		_ = cmd.Process.Kill()
		t.Fatal("serve did not exit after SIGTERM")
	}
	// The guest spins until stopped: the call answered with an error and a
	// clean exit are the evidence that its deadline stopped it. How soon is
	// not timed here, on a machine whose load the test does not own.
}
