package runtime

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

const waitLong = testkit.Wait

// reports collects what a change feed reports.
type reports struct {
	mu      sync.Mutex
	updated map[string]int
	lists   int
}

func (r *reports) report(res *abi.ChangesResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, u := range res.Updated {
		r.updated[u]++
	}
	if res.ListChanged {
		r.lists++
	}
}

func (r *reports) count(uri string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.updated[uri]
}

func (r *reports) listChanges() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lists
}

// filesFeed loads the files guest over grant and runs its change feed.
func filesFeed(t *testing.T, grant DirGrant, cfg ChangeFeedConfig) (*Provider, *reports) {
	t.Helper()
	p := load(t, cachedRuntime(t), filesWasm(t), testkit.Limits(NewProviderConfig()).WithGrants(Grants{Dirs: []DirGrant{grant}}))
	r := &reports{updated: map[string]int{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.WatchChanges(ctx, cfg, r.report) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return p, r
}

// cachedRuntime is a runtime whose compilation cache survives the test,
// so that the files guest (megabytes of Go wasm) compiles once per machine.
func cachedRuntime(t *testing.T) *Runtime {
	return newTestRuntime(t, NewConfig().WithCacheDir(filepath.Join(testguest.Root(), "build", "runtime-test-cache")))
}

func filesWasm(t *testing.T) []byte {
	t.Helper()
	wasm, err := os.ReadFile(testguest.Go(t, "guests/files"))
	require.NoError(t, err)
	return wasm
}

func write(t *testing.T, path, data string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
}

func fastFeed() ChangeFeedConfig {
	return NewChangeFeedConfig().WithInterval(50 * time.Millisecond).WithSettle(10 * time.Millisecond)
}

// TestWatchChanges_files: with inotify and with polling, editing a file
// under the granted directory reports its URI, adding or removing one
// reports a list change too. The host passes guest paths; the provider
// maps them to URIs.
func TestWatchChanges_files(t *testing.T) {
	for _, polling := range []bool{false, true} {
		t.Run(map[bool]string{false: "inotify", true: "poll"}[polling], func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "a.txt"), "a")
			write(t, filepath.Join(dir, "docs", "b.md"), "b")
			_, r := filesFeed(t, DirGrant{HostPath: dir}, fastFeed().WithDirPolling(polling))

			// The first round is a baseline: keep editing until it is in.
			require.Eventually(t, func() bool {
				write(t, filepath.Join(dir, "a.txt"), "a "+time.Now().String())
				return r.count(realURI(t, dir, "a.txt")) > 0
			}, testkit.Wait, 200*time.Millisecond)
			write(t, filepath.Join(dir, "docs", "b.md"), "b, edited")
			require.Eventually(t, func() bool { return r.count(realURI(t, dir, "docs/b.md")) > 0 }, testkit.Wait, 10*time.Millisecond)

			lists := r.listChanges()
			write(t, filepath.Join(dir, "docs", "new.md"), "new")
			require.Eventually(t, func() bool { return r.count(realURI(t, dir, "docs/new.md")) > 0 && r.listChanges() > lists },
				waitLong, 10*time.Millisecond)
			lists = r.listChanges()
			require.NoError(t, os.Remove(filepath.Join(dir, "a.txt")))
			require.Eventually(t, func() bool { return r.listChanges() > lists }, testkit.Wait, 10*time.Millisecond)
			require.Zero(t, r.count(realURI(t, dir, ".hidden")))
		})
	}
}

// TestWatchChanges_singleFile: a single granted file is watched and mapped
// to the name the guest sees it under.
func TestWatchChanges_singleFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.md")
	write(t, file, "1")
	_, r := filesFeed(t, DirGrant{HostPath: file}, fastFeed())
	require.Eventually(t, func() bool {
		write(t, file, "edit "+time.Now().String())
		return r.count(realURI(t, dir, "notes.md")) > 0
	}, testkit.Wait, 200*time.Millisecond)
}

// TestWatchChanges_active: while no one listens the provider is not asked,
// after the baseline taken at the start.
func TestWatchChanges_active(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.txt"), "a")
	var active atomic.Bool
	p, r := filesFeed(t, DirGrant{HostPath: dir}, fastFeed().WithActive(active.Load))
	require.Eventually(t, func() bool { return p.Stats().Calls >= 2 }, testkit.Wait, time.Millisecond, "describe at load, then the baseline")
	calls := p.Stats().Calls
	write(t, filepath.Join(dir, "a.txt"), "a, unheard")
	time.Sleep(300 * time.Millisecond) // several intervals, all inactive
	require.Equal(t, calls, p.Stats().Calls, "no changes call while inactive")
	require.Zero(t, r.count(realURI(t, dir, "a.txt")))

	active.Store(true)
	require.Eventually(t, func() bool {
		write(t, filepath.Join(dir, "a.txt"), "a "+time.Now().String())
		return r.count(realURI(t, dir, "a.txt")) > 0
	}, testkit.Wait, 200*time.Millisecond)
}

// TestWatchChanges_changeAtActivation: a file created the moment someone
// starts listening, before the feed has asked anything since, is reported
// as a list change: the baseline is the one from before, not a new one
// that already holds the file.
func TestWatchChanges_changeAtActivation(t *testing.T) {
	for _, delay := range []time.Duration{0, 50 * time.Millisecond} {
		t.Run(delay.String(), func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "a.txt"), "a")
			var active atomic.Bool
			ready := make(chan struct{})
			_, r := filesFeed(t, DirGrant{HostPath: dir}, fastFeed().WithActive(active.Load).WithReady(func() { close(ready) }))
			// The feed has taken its baseline before anyone listens. (Its
			// call count says a baseline started, not that it ended: a file
			// written meanwhile could land in it, which is not this case.)
			<-ready
			active.Store(true)
			time.Sleep(delay)
			write(t, filepath.Join(dir, "new.txt"), "new")
			require.Eventually(t, func() bool { return r.listChanges() > 0 }, testkit.Wait, 10*time.Millisecond)
		})
	}
}

// TestWatchChanges_refusals: a provider without the changes operation, or
// a bad config, is refused; a closed provider ends the feed.
func TestWatchChanges_refusals(t *testing.T) {
	rt := cachedRuntime(t)
	minimal := load(t, rt, minimalWasm(t), testkit.Limits(NewProviderConfig()))
	err := minimal.WatchChanges(t.Context(), NewChangeFeedConfig(), func(*abi.ChangesResult) {})
	require.ErrorIs(t, err, abi.ErrUnsupported)

	p := load(t, rt, filesWasm(t), testkit.Limits(NewProviderConfig()).WithGrants(Grants{Dirs: []DirGrant{{HostPath: t.TempDir()}}}))
	for _, cfg := range []ChangeFeedConfig{
		NewChangeFeedConfig().WithInterval(0),
		NewChangeFeedConfig().WithSettle(-time.Second),
		NewChangeFeedConfig().WithInterval(time.Second).WithSettle(2 * time.Second),
	} {
		require.ErrorIs(t, p.WatchChanges(t.Context(), cfg, func(*abi.ChangesResult) {}), ErrConfig)
	}
	done := make(chan error, 1)
	go func() { done <- p.WatchChanges(context.Background(), fastFeed(), func(*abi.ChangesResult) {}) }()
	require.NoError(t, p.Close(context.Background()))
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(waitLong):
		t.Fatal("the feed of a closed provider does not end")
	}
}

// TestFeed_guestPaths: host paths map to guest paths under their mount;
// foreign paths are dropped; lost or too many paths become the mounts.
func TestFeed_guestPaths(t *testing.T) {
	f := &feed{mounts: []mountedPath{
		{watch: "/srv/docs", guest: "/data"},
		{watch: "/etc/real/app.conf", guest: "/conf/app.conf", file: true},
	}}
	many := make([]string, maxChangedPaths+1)
	for i := range many {
		many[i] = filepath.Join("/srv/docs", "f", string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	tests := []struct {
		name  string
		hosts []string
		lost  bool
		want  []string
	}{
		{"files", []string{"/srv/docs/b.txt", "/srv/docs/a/x.md", "/srv/docs/b.txt"}, false, []string{"/data/a/x.md", "/data/b.txt"}},
		{"the mount itself", []string{"/srv/docs"}, false, []string{"/data"}},
		{"single file", []string{"/etc/real/app.conf"}, false, []string{"/conf/app.conf"}},
		{"foreign", []string{"/srv/docs2/x", "/srv/x", "/etc/real/other.conf"}, false, nil},
		{"lost", []string{"/srv/docs/b.txt"}, true, []string{"/conf/app.conf", "/data"}},
		{"too many", many, false, []string{"/conf/app.conf", "/data"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := f.guestPaths(tc.hosts, tc.lost)
			require.Equal(t, tc.want, got)
			require.True(t, slices.IsSorted(got))
		})
	}
}

// TestWatchChanges_healthAndWatched: the feed says when its calls succeed
// (from the baseline) and when it stops, and when the directory watch saw
// a granted file change, even while no one listens.
func TestWatchChanges_healthAndWatched(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.txt"), "a")
	p := load(t, cachedRuntime(t), filesWasm(t), testkit.Limits(NewProviderConfig()).WithGrants(Grants{Dirs: []DirGrant{{HostPath: dir}}}))
	var mu sync.Mutex
	var health []bool
	var watched atomic.Int64
	ready := make(chan struct{})
	cfg := fastFeed().WithActive(func() bool { return false }).WithReady(func() { close(ready) }).
		WithHealth(func(ok bool) { mu.Lock(); health = append(health, ok); mu.Unlock() }).
		WithWatched(func() { watched.Add(1) })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.WatchChanges(ctx, cfg, func(*abi.ChangesResult) {}) }()
	<-ready
	mu.Lock()
	require.Equal(t, []bool{true}, health, "healthy once the baseline is taken")
	mu.Unlock()
	require.Eventually(t, func() bool {
		write(t, filepath.Join(dir, "a.txt"), "a "+time.Now().String())
		return watched.Load() > 0
	}, testkit.Wait, 200*time.Millisecond, "the watch's event is passed on while inactive")
	cancel()
	require.NoError(t, <-done)
	require.Equal(t, []bool{true, false}, health, "not healthy once stopped")
}
