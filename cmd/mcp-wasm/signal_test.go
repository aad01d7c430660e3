package main

import (
	"bufio"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
)

// TestE2E_SIGTERMFinishesInFlight: a SIGTERM while a call is running stops
// the server only after that call is answered, and it exits 0.
func TestE2E_SIGTERMFinishesInFlight(t *testing.T) {
	loop := filepath.Join(testguest.Root(), "testdata", "hostile", "loop.wasm")
	cmd := exec.Command(binary(t), "serve", "--module", loop, "--timeout", "1s",
		"--cache-dir", testguest.CompileCache(), "--log-level", "warn")
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
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	line, err := out.ReadString('\n')
	require.NoError(t, err)
	require.Contains(t, line, `"id":1`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// evil:loop spins until the 1s deadline; the good read answers at once.
	send(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"evil:loop"}}`)
	time.Sleep(200 * time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))

	line, err = out.ReadString('\n')
	require.NoError(t, err, "the in-flight call must be answered after SIGTERM")
	require.Contains(t, line, `"id":2`)
	require.Contains(t, line, `-32603`, "a guest timeout is an internal error to the client")
	require.False(t, strings.Contains(line, "evil"), "no provider detail reaches the client: %s", line)
	require.NoError(t, cmd.Wait(), "clean shutdown exits 0")
}

// TestE2E_SIGTERMEndsListens: a SIGTERM with 2026-07-28 listens open on
// stdio sends each its final result before the process exits 0.
func TestE2E_SIGTERMEndsListens(t *testing.T) {
	loop := filepath.Join(testguest.Root(), "testdata", "hostile", "loop.wasm")
	cmd := exec.Command(binary(t), "serve", "--module", loop, "--timeout", "1s",
		"--cache-dir", testguest.CompileCache(), "--log-level", "warn")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = testWriter{t}
	require.NoError(t, cmd.Start())
	out := bufio.NewReader(stdout)
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, id := range []string{`"one"`, `2`} {
		_, err := io.WriteString(stdin, `{"jsonrpc":"2.0","id":`+id+`,"method":"subscriptions/listen","params":{"notifications":{"resourcesListChanged":true},`+meta+`}}`+"\n")
		require.NoError(t, err)
		line, err := out.ReadString('\n')
		require.NoError(t, err)
		require.Contains(t, line, `"method":"notifications/subscriptions/acknowledged"`)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	got := map[string]bool{}
	for range 2 {
		line, err := out.ReadString('\n')
		require.NoError(t, err, "every open listen gets its final result after SIGTERM")
		require.Contains(t, line, `"resultType":"complete"`)
		switch {
		case strings.Contains(line, `"id":"one"`):
			got["one"] = true
		case strings.Contains(line, `"id":2`):
			got["2"] = true
		}
	}
	require.Equal(t, map[string]bool{"one": true, "2": true}, got)
	require.NoError(t, cmd.Wait(), "clean shutdown exits 0")
}
