package main

import (
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/cmd/mcp-wasm/defaultprovider"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// TestE2E_HotReload runs the real binary with --config and a go-sdk client
// over stdio reading steadily: an edited config file (the binary's own
// one-second poll), SIGHUP (a real signal) and a broken config are each
// handled without one failed read, and the client hears list_changed.
// Every protocol revision is covered in-process by
// served.TestReload_everyRevision; this is the wiring of the binary.
func TestE2E_HotReload(t *testing.T) { hotReload(t, "2025-11-25") }

func hotReload(t *testing.T, revision string) {
	f := testkit.NewReload(t, defaultprovider.Wasm())

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), "serve", "--config", f.Path, "--log-level", "info",
		"--cache-dir", testguest.CompileCache())
	cmd.Stderr = f.Logs
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-reload", Version: "1"}, &mcp.ClientOptions{ResourceListChangedHandler: f.ListChanged})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	require.NoError(t, err)
	f.CS = cs
	defer func() {
		_ = cs.Close()
		if t.Failed() {
			t.Log(f.Logs.String())
		}
	}()
	require.Equal(t, "from a", f.Read(t))
	stop := f.Readers(3)

	// An edited config file (written atomically) is picked up by polling.
	f.Write(t, testkit.FilesConfig("b", 3))
	require.Eventually(t, func() bool { return f.Read(t) == "from b" }, testkit.Wait, 50*time.Millisecond, "config change not served")

	// SIGHUP reloads.
	f.Write(t, testkit.FilesConfig("a", 1))
	require.NoError(t, cmd.Process.Signal(syscall.SIGHUP))
	require.Eventually(t, func() bool { return f.Read(t) == "from a" }, testkit.Wait, 50*time.Millisecond, "SIGHUP reload not served")
	require.Eventually(t, func() bool { return strings.Contains(f.Logs.String(), "reason=SIGHUP") }, testkit.Wait, 50*time.Millisecond)

	// A broken config is refused and the old set keeps serving.
	f.Write(t, `{"providers": [{"module": "files.wasm", "grants": {"dirs": [{"host": "b"}]}, "limits": {"poolSize": "2"}}]}`)
	require.Eventually(t, func() bool { return strings.Contains(f.Logs.String(), "reload refused") }, testkit.Wait, 50*time.Millisecond)
	require.Contains(t, f.Logs.String(), `mcp.json:1:101: providers[0].limits.poolSize (provider \"files.wasm\"): must be a whole number, not a string`)
	require.Equal(t, "from a", f.Read(t))

	reads, failed, first := stop()
	require.Zero(t, failed, "%d of %d reads failed across reloads; first: %v", failed, reads, first)
	t.Logf("%s: %d reads, none failed", revision, reads)
	for _, line := range strings.Split(f.Logs.String(), "\n") {
		if strings.Contains(line, "reload") || strings.Contains(line, "replaced") {
			t.Log(line)
		}
	}
	if revision != "2026-07-28" { // a stateless client hears list changes only through subscriptions/listen
		require.Eventually(t, func() bool { return f.Listed.Load() > 0 }, testkit.Wait, 20*time.Millisecond, "no list_changed")
	}
}
