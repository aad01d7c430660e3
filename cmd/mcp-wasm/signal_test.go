package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// TestE2E_SIGTERMFinishesInFlight: a SIGTERM while a call is running stops
// the server only after that call is answered, and it exits 0.
func TestE2E_SIGTERMFinishesInFlight(t *testing.T) {
	loop := filepath.Join(testguest.Root(), "testdata", "hostile", "loop.wasm")
	cmd := exec.Command(binary(t), "serve", "--module", loop, "--timeout", "5s",
		"--cache-dir", testguest.CompileCache(), "--log-level", "warn", "--compile-timeout", testkit.Patient.String())
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
	// evil:loop spins until the 5s deadline. The ping after it is answered
	// once the server has read the read: it is then in flight (or, on a
	// machine too slow to answer a ping in 5 s, already answered).
	send(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"evil:loop"}}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	var answered string
	for {
		line, err = out.ReadString('\n')
		require.NoError(t, err)
		if strings.Contains(line, `"id":3`) {
			break
		}
		answered = line
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))

	line = answered
	if line == "" {
		line, err = out.ReadString('\n')
		require.NoError(t, err, "the in-flight call must be answered after SIGTERM")
	} else {
		t.Log("the read was answered before SIGTERM: the machine took longer than its deadline to answer a ping")
	}
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
		"--cache-dir", testguest.CompileCache(), "--log-level", "warn", "--compile-timeout", testkit.Patient.String())
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

// stuckStdio starts serve over stdio with a read of evil:loop in flight
// (its --timeout is an hour, so only shutdown ends it) and returns the
// process with its stdin. The read is known to be in flight once a ping
// sent after it is answered: lines are read in order.
func stuckStdio(t *testing.T, shutdownTimeout string) (*exec.Cmd, io.WriteCloser, <-chan error) {
	t.Helper()
	loop := filepath.Join(testguest.Root(), "testdata", "hostile", "loop.wasm")
	cmd := exec.Command(binary(t), "serve", "--module", loop, "--timeout", "1h", "--shutdown-timeout", shutdownTimeout,
		"--cache-dir", testguest.CompileCache(), "--log-level", "warn", "--compile-timeout", testkit.Patient.String())
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = testWriter{t}
	require.NoError(t, cmd.Start())
	exited, waited := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(waited)
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // a no-op once it exited
		<-waited
	})
	out := bufio.NewReader(stdout)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"evil:loop"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	} {
		_, err := io.WriteString(stdin, line+"\n")
		require.NoError(t, err)
	}
	for _, id := range []string{`"id":1`, `"id":3`} {
		line, err := out.ReadString('\n')
		require.NoError(t, err)
		require.Contains(t, line, id)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }() // the process may still write
	return cmd, stdin, exited
}

// waitExit waits for the process to exit, for at most a generous outer
// bound far above the shutdown bound under test, and returns its status.
func waitExit(t *testing.T, exited <-chan error) int {
	t.Helper()
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		require.NoError(t, err)
		return 0
	case <-time.After(testkit.Wait):
		t.Fatal("the server did not exit within testkit.Wait of being told to stop, with a call in flight")
		return -1
	}
}

// TestE2E_shutdownBound: with a call in flight that would run for an
// hour, SIGTERM, SIGINT and the end of stdin each make the stdio server
// exit within --shutdown-timeout. Before, it waited for the call (the
// drain lasted the request timeout, an hour here) and only SIGKILL ended it.
func TestE2E_shutdownBound(t *testing.T) {
	for name, stop := range map[string]func(*exec.Cmd, io.WriteCloser) error{
		"SIGTERM":      func(c *exec.Cmd, _ io.WriteCloser) error { return c.Process.Signal(syscall.SIGTERM) },
		"SIGINT":       func(c *exec.Cmd, _ io.WriteCloser) error { return c.Process.Signal(syscall.SIGINT) },
		"end of stdin": func(_ *exec.Cmd, in io.WriteCloser) error { return in.Close() },
	} {
		t.Run(name, func(t *testing.T) {
			cmd, stdin, exited := stuckStdio(t, "3s")
			require.NoError(t, stop(cmd, stdin))
			code := waitExit(t, exited)
			require.Contains(t, []int{0, 1}, code, "a clean stop, or the bound's exit")
		})
	}
}

// TestE2E_secondSignalExitsAtOnce: a second SIGTERM exits at once, even
// with an hour of shutdown bound left and a call in flight.
func TestE2E_secondSignalExitsAtOnce(t *testing.T) {
	cmd, _, exited := stuckStdio(t, "1h")
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	// The first signal is taken once the server stops reading: stdin's
	// end is then no longer read. Sending both at once may merge them.
	time.Sleep(100 * time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.Equal(t, 128+int(syscall.SIGTERM), waitExit(t, exited))
}

// TestE2E_HTTP_shutdownBound: serve --http with a read in flight that
// would run for an hour exits within --shutdown-timeout of SIGTERM.
// Before, it waited the whole grace (twice --timeout: two hours here).
func TestE2E_HTTP_shutdownBound(t *testing.T) {
	loop := filepath.Join(testguest.Root(), "testdata", "hostile", "loop.wasm")
	srv := startHTTP(t, nil, "--module", loop, "--timeout", "1h", "--shutdown-timeout", "3s", "--log-level", "warn")
	cs := connectURL(t, srv.url, "2025-11-25", nil)
	go func() { _, _ = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "evil:loop"}) }()
	metrics := strings.TrimSuffix(srv.url, "/mcp") + "/metrics"
	require.Eventually(t, func() bool { // the read reached the provider
		resp, err := http.Get(metrics)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return strings.Contains(string(b), `mcpwasm_provider_read_cache_misses_total{provider="evil"} 1`)
	}, testkit.Wait, 20*time.Millisecond)
	require.NoError(t, srv.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-srv.done:
	case <-time.After(testkit.Wait):
		t.Fatal("serve --http did not exit within testkit.Wait of SIGTERM, with a call in flight")
	}
}

func TestServe_shutdownTimeoutPositive(t *testing.T) {
	code, _, stderr := runCLI(t, "serve", "--shutdown-timeout", "0s")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--shutdown-timeout 0s: give a positive duration, such as 10s")
}

// TestServe_idleTimeoutPositive: --idle-timeout 0 (or less) is refused
// with what to give instead, before anything is loaded; the upper bound is
// the runtime's (served's TestLoad_limitsReachTheRuntime).
func TestServe_idleTimeoutPositive(t *testing.T) {
	for _, given := range []string{"0s", "-1s"} {
		code, _, stderr := runCLI(t, "serve", "--idle-timeout", given)
		require.Equal(t, 2, code, given)
		require.Contains(t, stderr, "--idle-timeout "+given+": give a positive duration, such as 30s", given)
	}
}
