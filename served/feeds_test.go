package served

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// recordingSink is a TrackingSink that keeps what it is told, by provider.
type recordingSink struct {
	mu      sync.Mutex
	updated map[string][]string
	lists   int
	tracked map[string]int // ons minus offs
}

func (r *recordingSink) ProviderChanged(string) {}

func (r *recordingSink) ChangesTracked(provider string, on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tracked == nil {
		r.tracked = map[string]int{}
	}
	if on {
		r.tracked[provider]++
	} else {
		r.tracked[provider]--
	}
}

// trackedNow is how many feeds track each of names now.
func (r *recordingSink) trackedNow(names ...string) []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]int, len(names))
	for i, n := range names {
		out[i] = r.tracked[n]
	}
	return out
}

func (r *recordingSink) ResourcesUpdated(provider string, uris ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.updated == nil {
		r.updated = map[string][]string{}
	}
	r.updated[provider] = append(r.updated[provider], uris...)
}

func (r *recordingSink) ResourceListChanged() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lists++
}

func (r *recordingSink) heard(provider string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.updated[provider])
}

// catalogConfig writes a config serving the C catalog guest (which reports
// a change on every changes call) under each name given, each with a
// scheme prefix of its name, and good.wasm (no changes operation).
func catalogConfig(t *testing.T, dir string, names ...string) string {
	t.Helper()
	catalog := testguest.C(t, "catalog-c", "guests/c/mcpw.c", "guests/catalog/c/catalog.c")
	var entries []string
	for _, n := range names {
		entries = append(entries, `{"module": "`+catalog+`", "name": "`+n+`", "schemePrefix": "`+n+`"}`)
	}
	entries = append(entries, `{"module": "`+testkit.Fixture("hostile", "good.wasm")+`"}`)
	path := filepath.Join(dir, "mcp.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"providers": [`+strings.Join(entries, ",")+`]}`), 0o644))
	return path
}

// TestFeeds_followTheSet: a feed runs for each served provider that
// declares changes (the real C catalog), reports under the served name
// with URIs under the scheme prefix; a reload stops the feeds of retired
// providers and starts the new ones at once; Close stops them all. The
// sink hears which providers are tracked: from each feed's baseline to its
// end (the list cache relies on it).
func TestFeeds_followTheSet(t *testing.T) {
	dir := t.TempDir()
	path := catalogConfig(t, dir, "alpha")
	reread := func() (*config.Config, error) { return readConfig(path) }
	cfg, err := reread()
	require.NoError(t, err)
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	loader := NewLoader(newTestRuntime(t), ResolveFile, log)
	first, err := loader.Load(t.Context(), cfg)
	require.NoError(t, err)
	publish := func([]*Provider) (<-chan struct{}, error) { c := make(chan struct{}); close(c); return c, nil }
	set := NewSet(loader, first, SetOptions{Reread: reread, Publish: publish, Log: log})
	sink := &recordingSink{}
	set.StartFeeds(t.Context(), sink, runtime.NewChangeFeedConfig().WithInterval(10*time.Millisecond).WithSettle(0).WithDirWatch(false))
	require.Equal(t, 1, set.feeds.count(), "one feed: good.wasm has no changes operation")
	require.Equal(t, []int{1}, sink.trackedNow("alpha"), "tracked once the baseline is taken")
	require.Eventually(t, func() bool { return sink.heard("alpha") >= 2 }, testkit.Wait, 10*time.Millisecond)
	sink.mu.Lock()
	require.True(t, strings.HasPrefix(sink.updated["alpha"][0], "alpha+catalog:"), "URIs come prefixed: %v", sink.updated["alpha"])
	sink.mu.Unlock()

	catalogConfig(t, dir, "beta", "gamma")
	require.NoError(t, set.Reload(t.Context(), "test"))
	require.Equal(t, 2, set.feeds.count(), "the reload replaced alpha's feed by beta's and gamma's")
	require.Eventually(t, func() bool { return sink.heard("beta") > 0 && sink.heard("gamma") > 0 }, testkit.Wait, 10*time.Millisecond)
	testkit.Eventually(t, func() bool { return slices.Equal([]int{0, 1, 1}, sink.trackedNow("alpha", "beta", "gamma")) },
		"alpha's feed stopped tracking, beta's and gamma's started")
	set.Close(context.Background())
	require.Zero(t, set.feeds.count())
	require.Equal(t, []int{0, 0, 0}, sink.trackedNow("alpha", "beta", "gamma"), "Close ends every feed's tracking")
	after := [2]int{sink.heard("beta"), sink.heard("gamma")}
	time.Sleep(50 * time.Millisecond) // five feed intervals: nothing may arrive after Close
	require.Equal(t, after, [2]int{sink.heard("beta"), sink.heard("gamma")}, "no feed runs after Close")
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) { w.t.Log(string(b)); return len(b), nil }
