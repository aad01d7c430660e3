package served

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// newTestRuntime returns a runtime whose compilation cache is shared by
// the tests across runs (and with cmd/mcp-wasm's): compiling files.wasm
// takes most of a minute under the race detector, loading it from the
// cache well under a second.
func newTestRuntime(t *testing.T) *runtime.Runtime {
	t.Helper()
	cache := filepath.Join(testguest.Root(), "build", "cmd-test-cache")
	rt, err := runtime.New(t.Context(), runtime.NewConfig().WithCacheDir(cache))
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(context.WithoutCancel(t.Context())) })
	return rt
}

// filesWasm is the files provider (guests/files, the module cmd/mcp-wasm
// embeds as its default provider), built once and cached by testguest.
func filesWasm(t *testing.T) string { return testguest.Go(t, "guests/files") }

// serverProviders returns ps as the server's providers.
func serverProviders(ps []*Provider) []server.Provider {
	out := make([]server.Provider, len(ps))
	for i, p := range ps {
		out[i] = p
	}
	return out
}

// publishTo swaps generations into srv.
func publishTo(srv *server.Server) Publish {
	return func(next []*Provider) (<-chan struct{}, error) { return srv.SetProviders(serverProviders(next)...) }
}

// reloadFixture is testkit's reload directory served in-process by a Set,
// with a go-sdk client connected.
type reloadFixture struct {
	*testkit.Reload
	set *Set
}

func newReloadFixture(t *testing.T) *reloadFixture {
	t.Helper()
	return newReloadFixtureRevision(t, "2025-06-18")
}

// newReloadFixtureRevision is newReloadFixture with a client speaking
// revision.
func newReloadFixtureRevision(t *testing.T, revision string) *reloadFixture {
	t.Helper()
	wasm, err := os.ReadFile(filesWasm(t))
	require.NoError(t, err)
	f := &reloadFixture{Reload: testkit.NewReload(t, wasm)}
	log := slog.New(slog.NewTextHandler(f.Logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	reread := func() (*config.Config, error) { return readConfig(f.Path) }
	cfg, err := reread()
	require.NoError(t, err)
	loader := NewLoader(newTestRuntime(t), ResolveFile, log)
	first, err := loader.Load(t.Context(), cfg)
	require.NoError(t, err)
	srv, err := server.New(server.NewConfig().WithProviders(serverProviders(first.Providers())...).WithLogger(log).WithCallTimeout(cfg.MaxTimeout() + time.Second))
	require.NoError(t, err)
	f.set = NewSet(loader, first, SetOptions{Reread: reread, Publish: publishTo(srv), Log: log})
	f.CS = serveInProcess(t, srv, revision, &mcp.ClientOptions{ResourceListChangedHandler: f.ListChanged})
	t.Cleanup(func() { f.set.Close(context.Background()) })
	return f
}

// serveInProcess serves srv over pipes, as over stdio, to a go-sdk client.
func serveInProcess(t *testing.T, srv *server.Server, revision string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cr, sw := io.Pipe() // server -> client
	sr, cw := io.Pipe() // client -> server
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(ctx, sr, sw) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "reload-test", Version: "1"}, opts)
	cs, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: cr, Writer: cw}, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
		_ = sw.Close()
		require.NoError(t, <-done)
	})
	return cs
}

// TestReload_zeroFailedReads swaps the set back and forth under a steady
// stream of reads through the real server and the real files.wasm: every
// read succeeds, every swap is visible, and clients hear list_changed.
func TestReload_zeroFailedReads(t *testing.T) {
	f := newReloadFixture(t)
	require.Equal(t, "from a", f.Read(t))
	stop := f.Readers(4)
	for i := range 6 {
		data := []string{"b", "a"}[i%2]
		f.Write(t, testkit.FilesConfig(data, 1+i%3))
		require.NoError(t, f.set.Reload(t.Context(), "test"))
		require.Equal(t, "from "+data, f.Read(t), "reload %d", i)
	}
	reads, failed, first := stop()
	require.Zero(t, failed, "%d of %d reads failed during reloads; first: %v", failed, reads, first)
	require.Greater(t, reads, int64(6))
	require.Eventually(t, func() bool { return f.Listed.Load() > 0 }, testkit.Wait, 10*time.Millisecond, "no list_changed")
	require.Contains(t, f.Logs.String(), "providers reloaded")
}

// TestReload_brokenKeepsTheOldSet: a broken config, a broken module and an
// overlapping set are each refused, logged with the reason, and the old
// set keeps serving without a failed read.
func TestReload_brokenKeepsTheOldSet(t *testing.T) {
	f := newReloadFixture(t)
	stop := f.Readers(2)
	garbage := filepath.Join(f.Dir, "garbage.wasm")
	require.NoError(t, os.WriteFile(garbage, []byte("not wasm at all"), 0o644))
	tests := []struct {
		name, text, log string
	}{
		{"unknown key", `{"providers": [{"module": "files.wasm", "limts": {}}]}`, `unknown key \"limts\": did you mean \"limits\"?`},
		{"syntax", `{"providers": [`, "the JSON ends too early"},
		{"broken module", `{"providers": [{"module": "garbage.wasm"}]}`, "not a WebAssembly core module"},
		{"missing dir", testkit.FilesConfig("nowhere", 1), "nowhere: no such file or directory"},
		{"overlap", `{"providers": [{"module": "files.wasm", "grants": {"dirs": [{"host": "a"}]}},
			{"module": "files.wasm", "name": "files2", "grants": {"dirs": [{"host": "b"}]}}]}`, "overlaps file:"},
	}
	for _, tt := range tests {
		f.Write(t, tt.text)
		err := f.set.Reload(t.Context(), "test")
		require.Error(t, err, tt.name)
		require.Contains(t, f.Logs.String(), "reload refused: still serving the previous providers", tt.name)
		require.Contains(t, f.Logs.String(), tt.log, tt.name)
		require.Equal(t, "from a", f.Read(t), tt.name)
	}
	reads, failed, first := stop()
	require.Zero(t, failed, "%d of %d reads failed; first: %v", failed, reads, first)

	f.Write(t, testkit.FilesConfig("b", 2)) // a fixed config is taken again
	require.NoError(t, f.set.Reload(t.Context(), "test"))
	require.Equal(t, "from b", f.Read(t))
}

// TestReload_watch reloads on a changed config file, on a rewritten module
// file, and on SIGHUP (here, its channel), through the watch loop.
func TestReload_watch(t *testing.T) {
	f := newReloadFixture(t)
	ctx, cancel := context.WithCancel(t.Context())
	hup := make(chan os.Signal, 1)
	var wg sync.WaitGroup
	wg.Go(func() { f.set.Watch(ctx, hup, true, 20*time.Millisecond) })
	defer func() { cancel(); wg.Wait() }()
	stop := f.Readers(2)

	f.Write(t, testkit.FilesConfig("b", 2))
	require.Eventually(t, func() bool { return f.Read(t) == "from b" }, testkit.Wait, 20*time.Millisecond, "config change not picked up")

	before := countReloads(f.Logs.String())
	future := time.Now().Add(time.Hour) // a new mtime, whatever the clock granularity
	require.NoError(t, os.Chtimes(filepath.Join(f.Dir, "files.wasm"), future, future))
	require.Eventually(t, func() bool { return countReloads(f.Logs.String()) > before }, testkit.Wait, 20*time.Millisecond, "module change not picked up")
	require.Contains(t, f.Logs.String(), "reason=\"file changed\"")

	// SIGHUP reloads even when nothing changed on disk. The wait is for a
	// reload with that reason: a late reload of the file change above
	// would satisfy a plain count before the SIGHUP's is logged.
	hup <- os.Interrupt // any value: the channel is what watch listens on
	testkit.Eventually(t, func() bool { return reloadsFor(f.Logs.String(), "reason=SIGHUP") > 0 }, "SIGHUP not acted on")

	reads, failed, first := stop()
	require.Zero(t, failed, "%d of %d reads failed; first: %v", failed, reads, first)
}

func countReloads(logs string) int { return bytes.Count([]byte(logs), []byte("providers reloaded")) }

// reloadsFor counts the reloads logged with reason (as it is logged:
// reason=SIGHUP, reason="file changed").
func reloadsFor(logs, reason string) int {
	n := 0
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, "providers reloaded") && strings.Contains(line, reason) {
			n++
		}
	}
	return n
}

func TestReload_stampsNoticeEveryChange(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(p, []byte("1"), 0o644))
	a := stampFiles([]string{p})
	require.Equal(t, a, stampFiles([]string{p}), "an unchanged file keeps its stamp")
	require.NoError(t, os.WriteFile(p, []byte("22"), 0o644))
	b := stampFiles([]string{p})
	require.NotEqual(t, a, b)
	require.NoError(t, os.Chmod(p, 0o600))
	require.NotEqual(t, b, stampFiles([]string{p}))
	require.NoError(t, os.Remove(p))
	require.True(t, stampFiles([]string{p})[p].missing)
}

// TestPendingChange: a change is reloaded once a poll finds the files as
// the previous poll did, or once they have kept changing for
// maxPendingPolls polls.
func TestPendingChange(t *testing.T) {
	stamp := func(n int64) map[string]fileStamp { return map[string]fileStamp{"f": {size: n}} }
	var w pendingChange
	require.False(t, w.due(stamp(0), false), "nothing changed")
	require.False(t, w.due(stamp(1), true), "a change is seen: wait one poll")
	require.True(t, w.due(stamp(1), true), "the next poll agrees")

	w = pendingChange{}
	for i := range maxPendingPolls {
		require.False(t, w.due(stamp(int64(10+i)), true), "poll %d: still changing", i+1)
	}
	require.True(t, w.due(stamp(99), true), "changing for maxPendingPolls polls: reload anyway")

	w = pendingChange{}
	require.False(t, w.due(stamp(1), true))
	require.False(t, w.due(stamp(0), false), "changed back: nothing pending")
	require.False(t, w.due(stamp(2), true), "a new change starts a new wait")
}

// TestReload_churn: a writer rewrites the config before every poll, so no
// two polls ever agree; the set is still reloaded, at most
// maxPendingPolls+1 polls after the first change, and again once the
// writing stops, with the last config written.
func TestReload_churn(t *testing.T) {
	f := newReloadFixture(t)
	var w pendingChange
	reloaded := 0
	for i := 0; reloaded == 0; i++ {
		require.LessOrEqual(t, i, maxPendingPolls, "rewritten before every poll, the config was never reloaded")
		f.Write(t, testkit.FilesConfig([]string{"b", "a"}[i%2], 1+i%4)+strings.Repeat(" ", i)) // a new size every time
		f.set.poll(t.Context(), &w)
		reloaded = countReloads(f.Logs.String())
	}
	require.Equal(t, 1, reloaded)
	f.Write(t, testkit.FilesConfig("b", 3)) // the last write
	f.set.poll(t.Context(), &w)             // sees it
	require.Equal(t, 1, countReloads(f.Logs.String()))
	f.set.poll(t.Context(), &w) // agrees
	require.Equal(t, 2, countReloads(f.Logs.String()))
	require.Equal(t, "from b", f.Read(t))
}

// TestReload_churnRealTime: a writer goroutine rewrites the config every
// 0.7 poll intervals, as a deploy tool in a loop does, through the real
// watch loop and ticker; the set is reloaded while it is still writing.
func TestReload_churnRealTime(t *testing.T) {
	f := newReloadFixture(t)
	const every = 50 * time.Millisecond
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() { f.set.Watch(ctx, nil, true, every) })
	writing := make(chan struct{})
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-writing:
				return
			case <-time.After(every * 7 / 10):
			}
			f.Write(t, testkit.FilesConfig([]string{"b", "a"}[i%2], 1+i%4)+strings.Repeat(" ", i%100)) // a new size every time
		}
	})
	defer func() { cancel(); wg.Wait() }()
	require.Eventually(t, func() bool { return countReloads(f.Logs.String()) > 0 }, testkit.Wait, every,
		"a config rewritten every 0.7 poll intervals was never reloaded")
	close(writing)
}

// TestReload_everyRevision: with a client of each protocol revision
// reading steadily, an edited config file (through the watch loop),
// SIGHUP and a broken config are each handled without one failed read;
// clients of the handshake revisions hear list_changed.
func TestReload_everyRevision(t *testing.T) {
	for _, rev := range []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) {
			f := newReloadFixtureRevision(t, rev)
			ctx, cancel := context.WithCancel(t.Context())
			hup := make(chan os.Signal, 1)
			var wg sync.WaitGroup
			wg.Go(func() { f.set.Watch(ctx, hup, true, 20*time.Millisecond) })
			defer func() { cancel(); wg.Wait() }()
			require.Equal(t, "from a", f.Read(t))
			stop := f.Readers(3)

			f.Write(t, testkit.FilesConfig("b", 3))
			require.Eventually(t, func() bool { return f.Read(t) == "from b" }, testkit.Wait, 10*time.Millisecond, "config change not served")
			f.Write(t, testkit.FilesConfig("a", 1))
			hup <- os.Interrupt
			require.Eventually(t, func() bool { return f.Read(t) == "from a" }, testkit.Wait, 10*time.Millisecond, "SIGHUP reload not served")
			f.Write(t, `{"providers": [{"module": "files.wasm", "grants": {"dirs": [{"host": "b"}]}, "limits": {"poolSize": "2"}}]}`)
			require.Eventually(t, func() bool { return strings.Contains(f.Logs.String(), "reload refused") }, testkit.Wait, 10*time.Millisecond)
			require.Equal(t, "from a", f.Read(t))

			reads, failed, first := stop()
			require.Zero(t, failed, "%d of %d reads failed across reloads; first: %v", failed, reads, first)
			if rev != "2026-07-28" { // a stateless client hears list changes only through subscriptions/listen
				require.Eventually(t, func() bool { return f.Listed.Load() > 0 }, testkit.Wait, 10*time.Millisecond, "no list_changed")
			}
		})
	}
}
