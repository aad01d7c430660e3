package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/cmd/mcp-wasm/defaultprovider"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testlog"
)

// TestE2E_HotReload runs the real binary with --config and a go-sdk client
// over stdio reading steadily: an edited config file (the binary's own
// one-second poll), SIGHUP (a real signal) and a broken config are each
// handled without one failed read, and the client hears list_changed.
// Every protocol revision is covered in-process by
// served.TestReload_everyRevision; this is the wiring of the binary.
func TestE2E_HotReload(t *testing.T) { hotReload(t, "2025-11-25") }

func hotReload(t *testing.T, revision string) {
	f := &reloadFixture{dir: t.TempDir(), logs: &testlog.Buffer{}}
	f.path = filepath.Join(f.dir, "mcp.json")
	require.NoError(t, os.WriteFile(filepath.Join(f.dir, "files.wasm"), defaultprovider.Wasm(), 0o644))
	for _, d := range []string{"a", "b"} {
		require.NoError(t, os.Mkdir(filepath.Join(f.dir, d), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(f.dir, d, "same.txt"), []byte("from "+d), 0o644))
	}
	f.write(t, filesConfig("a", 2))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), "serve", "--config", f.path, "--log-level", "info",
		"--cache-dir", testguest.CompileCache())
	cmd.Stderr = f.logs
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-reload", Version: "1"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { f.listed.Add(1) },
	})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	require.NoError(t, err)
	f.cs = cs
	defer func() {
		_ = cs.Close()
		if t.Failed() {
			t.Log(f.logs.String())
		}
	}()
	require.Equal(t, "from a", f.read(t))
	stop := f.readers(3)

	// An edited config file (written atomically) is picked up by polling.
	f.write(t, filesConfig("b", 3))
	require.Eventually(t, func() bool { return f.read(t) == "from b" }, 20*time.Second, 50*time.Millisecond, "config change not served")

	// SIGHUP reloads.
	f.write(t, filesConfig("a", 1))
	require.NoError(t, cmd.Process.Signal(syscall.SIGHUP))
	require.Eventually(t, func() bool { return f.read(t) == "from a" }, 20*time.Second, 50*time.Millisecond, "SIGHUP reload not served")
	require.Eventually(t, func() bool { return strings.Contains(f.logs.String(), "reason=SIGHUP") }, 10*time.Second, 50*time.Millisecond)

	// A broken config is refused and the old set keeps serving.
	f.write(t, `{"providers": [{"module": "files.wasm", "grants": {"dirs": [{"host": "b"}]}, "limits": {"poolSize": "2"}}]}`)
	require.Eventually(t, func() bool { return strings.Contains(f.logs.String(), "reload refused") }, 20*time.Second, 50*time.Millisecond)
	require.Contains(t, f.logs.String(), `mcp.json:1:101: providers[0].limits.poolSize (provider \"files.wasm\"): must be a whole number, not a string`)
	require.Equal(t, "from a", f.read(t))

	reads, failed, first := stop()
	require.Zero(t, failed, "%d of %d reads failed across reloads; first: %v", failed, reads, first)
	t.Logf("%s: %d reads, none failed", revision, reads)
	for _, line := range strings.Split(f.logs.String(), "\n") {
		if strings.Contains(line, "reload") || strings.Contains(line, "replaced") {
			t.Log(line)
		}
	}
	if revision != "2026-07-28" { // a stateless client hears list changes only through subscriptions/listen
		require.Eventually(t, func() bool { return f.listed.Load() > 0 }, 5*time.Second, 20*time.Millisecond, "no list_changed")
	}
}
