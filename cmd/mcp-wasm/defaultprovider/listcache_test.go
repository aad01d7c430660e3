package defaultprovider_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/cmd/mcp-wasm/defaultprovider"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// countingProvider counts the list calls the server makes to a provider.
type countingProvider struct {
	server.Provider
	lists atomic.Int64
}

func (c *countingProvider) List(ctx context.Context, cursor string) (*abi.ListResult, error) {
	c.lists.Add(1)
	return c.Provider.List(ctx, cursor)
}

// TestListCache_defaultProvider: the embedded default provider (the real C
// guest in wazero) behind the server, its change feed run as serve runs it
// (watching the granted directory), listed by the go-sdk client over
// stdio pipes. An unchanged tree is listed from the cache, without calling
// the guest; a file added on disk is in the first listing after the
// change notification.
func TestListCache_defaultProvider(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	for _, name := range []string{"a.txt", "b.txt", "sub/c.txt"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644))
	}
	rt, err := runtime.New(ctx, runtime.NewConfig())
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	guest, err := rt.Load(ctx, "files", defaultprovider.Wasm(), testkit.Limits(runtime.NewProviderConfig()).
		WithGrants(runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: dir}}}))
	require.NoError(t, err)
	p := &countingProvider{Provider: guest}
	s, err := server.New(server.NewConfig().WithProviders(p).WithCallTimeout(testkit.Patient).WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	startFeed(t, guest, s)

	var heard atomic.Int64
	client := mcp.NewClient(&mcp.Implementation{Name: "listcache", Version: "1"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { heard.Add(1) },
	})
	cs := connectClient(t, client, s)

	require.ElementsMatch(t, []string{fileURI(dir, "a.txt"), fileURI(dir, "b.txt"), fileURI(dir, "sub/c.txt")}, listURIs(t, cs))
	calls := p.lists.Load()
	require.Positive(t, calls)
	for range 3 {
		require.Len(t, listURIs(t, cs), 3)
	}
	require.Equal(t, calls, p.lists.Load(), "an unchanged tree is listed without calling the guest")
	require.Positive(t, s.ListCacheBytes())

	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "d.txt"), []byte("new"), 0o644))
	testkit.Eventually(t, func() bool { return heard.Load() > 0 }, "notifications/resources/list_changed after a file was added")
	require.Contains(t, listURIs(t, cs), fileURI(dir, "sub/d.txt"), "the first listing after the change has the new file")
	require.Greater(t, p.lists.Load(), calls, "the guest was asked again")

	// A change the provider does not list (a hidden file) is still a
	// change the host's watch saw: the pages are asked for again.
	listURIs(t, cs)
	calls = p.lists.Load()
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".hidden"), []byte("x"), 0o644))
	testkit.Eventually(t, func() bool { listURIs(t, cs); return p.lists.Load() > calls }, "the watch's event drops the cached pages")
	require.Len(t, listURIs(t, cs), 4)
}

// TestListCache_accountsWhatItHolds: the list cache's count of what it
// holds is not below what the heap holds for it (so its budget bounds the
// memory), nor far above, for a listing of 10,000 files of the default
// provider, decoded from the guest's answers as the server gets them.
func TestListCache_accountsWhatItHolds(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	const n = 10_000
	for i := range n {
		name := filepath.Join(dir, fmt.Sprintf("d%02d", i%100), fmt.Sprintf("file-%05d.txt", i))
		require.NoError(t, os.MkdirAll(filepath.Dir(name), 0o755))
		require.NoError(t, os.WriteFile(name, []byte("x"), 0o644))
	}
	rt, err := runtime.New(ctx, runtime.NewConfig())
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	p, err := rt.Load(ctx, "files", defaultprovider.Wasm(), testkit.Limits(runtime.NewProviderConfig()).
		WithGrants(runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: dir}}}))
	require.NoError(t, err)
	s, err := server.New(server.NewConfig().WithProviders(p).WithCallTimeout(testkit.Patient).WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	s.ChangesTracked("files", true)
	cs := connectClient(t, mcp.NewClient(&mcp.Implementation{Name: "listcache", Version: "1"}, nil), s)
	require.Len(t, listURIs(t, cs), n)

	inUse := func() int64 {
		goruntime.GC()
		goruntime.GC()
		var m goruntime.MemStats
		goruntime.ReadMemStats(&m)
		return int64(m.HeapInuse)
	}
	counted := s.ListCacheBytes()
	with := inUse()
	s.ResourceListChanged() // drops every page
	held := with - inUse()
	t.Logf("the cache held %d bytes (%d an item), counted %d (%d an item)", held, held/n, counted, counted/n)
	// The heap moves between the two readings whatever the cache does (the
	// client's and the runtime's own allocations, which depend on the
	// shuffled order and the machine's load; under stress-ng two runs read
	// 0.05 % and 1.4 % more held than counted): 3 % of slack still fails
	// the 6 % undercount this test caught. Taking the least of several
	// fill-and-drop rounds was tried and rejected: a refill holds less than
	// the first fill, which would hide that undercount.
	require.GreaterOrEqual(t, counted, held-held*3/100, "the budget bounds what the cache holds")
	require.Less(t, counted, held*3/2, "and does not count far more")
}

// startFeed runs the change feed of p into s as served.StartFeeds does, and
// returns once it has its baseline.
func startFeed(t testing.TB, p *runtime.Provider, s *server.Server) {
	ctx, stop := context.WithCancel(context.Background())
	done, ready := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		cfg := runtime.NewChangeFeedConfig().WithActive(s.Interested).WithReady(func() { close(ready) }).
			WithHealth(func(ok bool) { s.ChangesTracked("files", ok) }).WithWatched(func() { s.ProviderChanged("files") })
		_ = p.WatchChanges(ctx, cfg, func(res *abi.ChangesResult) {
			if len(res.Updated) > 0 {
				s.ResourcesUpdated("files", res.Updated...)
			}
			if res.ListChanged {
				s.ResourceListChanged()
			}
		})
	}()
	t.Cleanup(func() { stop(); <-done })
	<-ready
}

// connectClient connects client to s over stdio pipes, speaking 2025-11-25
// (on 2026-07-28 the go-sdk client would reuse pages itself for their ttl).
func connectClient(t *testing.T, client *mcp.Client, s *server.Server) *mcp.ClientSession {
	return clientOn(t, client, func(ctx context.Context, e *pipeEnds) error { return s.ServeStdio(ctx, e.in, e.out) })
}

func listURIs(t testing.TB, cs *mcp.ClientSession) []string {
	var out []string
	params := &mcp.ListResourcesParams{}
	for {
		res, err := cs.ListResources(t.Context(), params)
		require.NoError(t, err)
		for _, r := range res.Resources {
			out = append(out, r.URI)
		}
		if res.NextCursor == "" {
			return out
		}
		params.Cursor = res.NextCursor
	}
}

func fileURI(dir, name string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, name))}).String()
}
