package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// The read cache, through the real files provider: hits are served while
// the files a read looked up are unchanged, and never once they changed,
// whatever the change (a new size, new times, the same size and times
// restored, a new file under the same name, a deletion).

var publicHint = &abi.CacheHint{TTLMs: 60_000, Scope: abi.ScopePublic}

func cacheProvider(t *testing.T, dir string, cfg Config, hint *abi.CacheHint) (*Runtime, *Provider) {
	t.Helper()
	rt := newTestRuntime(t, cfg.WithCacheDir(filepath.Join(testguest.Root(), "build", "runtime-test-cache")))
	p := load(t, rt, filesWasm(t), testkit.Limits(NewProviderConfig()).WithCacheHint(hint).WithGrants(Grants{Dirs: []DirGrant{{HostPath: dir}}}))
	return rt, p
}

func readText(t *testing.T, p *Provider, uri string) string {
	t.Helper()
	r, err := p.Read(t.Context(), uri)
	require.NoError(t, err)
	require.Len(t, r.Contents, 1)
	return *r.Contents[0].Text
}

func TestReadCache_hitsUntilTheFileChanges(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.txt")
	write(t, file, "one")
	rt, p := cacheProvider(t, dir, NewConfig(), publicHint)

	require.Equal(t, "one", readText(t, p, realURI(t, dir, "a.txt")))
	calls := p.Stats().Calls
	require.Equal(t, "one", readText(t, p, realURI(t, dir, "a.txt")))
	require.Equal(t, calls, p.Stats().Calls, "a hit runs no guest code")
	require.Equal(t, uint64(1), p.Stats().CacheHits)
	require.Positive(t, rt.ReadCacheBytes())

	changes := map[string]func(){
		"new size": func() { write(t, file, "three") },
		"same size and times": func() { // only the change time tells
			fi, err := os.Stat(file)
			require.NoError(t, err)
			write(t, file, "THREE")
			require.NoError(t, os.Chtimes(file, fi.ModTime(), fi.ModTime()))
		},
		"replaced": func() { // a new file renamed over the old one
			tmp := filepath.Join(dir, ".tmp")
			write(t, tmp, "fresh")
			require.NoError(t, os.Rename(tmp, file))
		},
	}
	for _, name := range []string{"new size", "same size and times", "replaced"} {
		changes[name]()
		want, err := os.ReadFile(file)
		require.NoError(t, err)
		require.Equal(t, string(want), readText(t, p, realURI(t, dir, "a.txt")), name)
		require.Equal(t, string(want), readText(t, p, realURI(t, dir, "a.txt")), name+", cached again")
	}
	require.NoError(t, os.Remove(file))
	_, err := p.Read(t.Context(), realURI(t, dir, "a.txt"))
	require.ErrorIs(t, err, abi.ErrNotFound, "a deleted file is not served from the cache")
}

func TestReadCache_hintDecides(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.txt"), "a")
	t.Run("the provider's own", func(t *testing.T) {
		// No operator default: the files provider's describe hint (one
		// second, public) lets a repeat read be served by the host.
		_, p := cacheProvider(t, dir, NewConfig(), nil)
		require.Equal(t, &abi.CacheHint{TTLMs: 1000, Scope: abi.ScopePublic}, p.Describe().Cache)
		readText(t, p, realURI(t, dir, "a.txt"))
		readText(t, p, realURI(t, dir, "a.txt"))
		require.Equal(t, uint64(1), p.Stats().CacheHits)
	})
	for name, hint := range map[string]*abi.CacheHint{
		"private": {TTLMs: 60_000, Scope: abi.ScopePrivate},
		"no ttl":  {TTLMs: 0, Scope: abi.ScopePublic},
	} {
		t.Run(name, func(t *testing.T) {
			_, p := cacheProvider(t, dir, NewConfig(), hint)
			readText(t, p, realURI(t, dir, "a.txt"))
			readText(t, p, realURI(t, dir, "a.txt"))
			require.Zero(t, p.Stats().CacheHits)
		})
	}
	t.Run("expired", func(t *testing.T) {
		_, p := cacheProvider(t, dir, NewConfig(), &abi.CacheHint{TTLMs: 30, Scope: abi.ScopePublic})
		readText(t, p, realURI(t, dir, "a.txt"))
		time.Sleep(60 * time.Millisecond)
		readText(t, p, realURI(t, dir, "a.txt"))
		require.Zero(t, p.Stats().CacheHits, "never older than its ttl")
	})
	t.Run("off", func(t *testing.T) {
		rt, p := cacheProvider(t, dir, NewConfig().WithReadCache(0), publicHint)
		readText(t, p, realURI(t, dir, "a.txt"))
		readText(t, p, realURI(t, dir, "a.txt"))
		require.Zero(t, p.Stats().CacheHits)
		require.Zero(t, p.Stats().CacheMisses)
		require.Zero(t, rt.ReadCacheBytes())
	})
}

// TestReadCache_budget: entries beyond the budget are evicted, least
// recently used first, and a closed provider's entries go.
func TestReadCache_budget(t *testing.T) {
	dir := t.TempDir()
	for i := range 40 {
		write(t, filepath.Join(dir, fmt.Sprintf("f%02d.txt", i)), strings.Repeat("x", 1000))
	}
	const budget = 16 << 10
	rt, p := cacheProvider(t, dir, NewConfig().WithReadCache(budget), publicHint)
	for i := range 40 {
		readText(t, p, realURI(t, dir, fmt.Sprintf("f%02d.txt", i)))
		require.LessOrEqual(t, rt.ReadCacheBytes(), int64(budget))
	}
	hits := p.Stats().CacheHits
	readText(t, p, realURI(t, dir, "f39.txt"))
	require.Equal(t, hits+1, p.Stats().CacheHits, "the most recent stays")
	readText(t, p, realURI(t, dir, "f00.txt"))
	require.Equal(t, hits+1, p.Stats().CacheHits, "the oldest was evicted")
	require.NoError(t, p.Close(t.Context()))
	require.Zero(t, rt.ReadCacheBytes())
}

// TestReadCache_neverStale: readers hammer a file that a writer replaces
// with ever newer versions; no read returns a version older than the one
// committed when it started.
func TestReadCache_neverStale(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "v.txt")
	write(t, file, "0")
	_, p := cacheProvider(t, dir, NewConfig(), publicHint)
	uri := realURI(t, dir, "v.txt")
	var committed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for v := int64(1); ; v++ {
			select {
			case <-stop:
				return
			default:
			}
			tmp := filepath.Join(dir, ".v")
			if os.WriteFile(tmp, []byte(strconv.FormatInt(v, 10)), 0o644) == nil && os.Rename(tmp, file) == nil {
				committed.Store(v)
			}
			time.Sleep(time.Millisecond)
		}
	})
	var stale atomic.Int64
	for range 4 {
		wg.Go(func() {
			for range 300 {
				before := committed.Load()
				r, err := p.Read(t.Context(), uri)
				if err != nil {
					continue // a read racing the rename may miss the file
				}
				if v, _ := strconv.ParseInt(*r.Contents[0].Text, 10, 64); v < before {
					stale.Add(1)
				}
			}
		})
	}
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()
	require.Zero(t, stale.Load(), "stale reads")
	require.Positive(t, p.Stats().CacheHits, "the cache was used")
}

// heapInUse is the live heap after a full collection.
func heapInUse() int64 {
	goruntime.GC()
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestReadCache_accountsWhatItHolds: a provider whose every read looks up
// 256 distinct names of 4 KiB (testdata/hostile/statspam.wat) costs the
// cache what those lookups hold, so the heap grows by no more than what
// the cache counts (plus a small constant), and the count stays within
// the budget. Before, a lookup counted 64 bytes whatever its name: forty
// such reads grew the heap by about 90 MiB while the cache counted under
// 1 MiB of its 16 MiB budget.
func TestReadCache_accountsWhatItHolds(t *testing.T) {
	wasm, err := os.ReadFile(filepath.Join("..", "testdata", "hostile", "statspam.wasm"))
	require.NoError(t, err, "run testdata/hostile/regen.sh")
	const budget = 16 << 20
	rt := newTestRuntime(t, NewConfig().WithReadCache(budget).WithCacheDir(filepath.Join(testguest.Root(), "build", "runtime-test-cache")))
	p := load(t, rt, wasm, NewProviderConfig().WithCacheHint(publicHint).WithGrants(Grants{Dirs: []DirGrant{{HostPath: t.TempDir()}}}))
	read := func(i int) {
		r, err := p.Read(t.Context(), fmt.Sprintf("evil:statspam/%d", i))
		require.NoError(t, err)
		require.Equal(t, "ok", *r.Contents[0].Text)
	}
	read(-1) // the instance, and what a first read makes once
	before, counted := heapInUse(), rt.ReadCacheBytes()
	for i := range 40 {
		read(i)
		require.LessOrEqual(t, rt.ReadCacheBytes(), int64(budget))
	}
	grown, countedGrowth := heapInUse()-before, rt.ReadCacheBytes()-counted
	t.Logf("heap grew %d bytes; the cache counts %d more (%d in all)", grown, countedGrowth, rt.ReadCacheBytes())
	hits := p.Stats().CacheHits
	read(39)
	require.Equal(t, hits+1, p.Stats().CacheHits, "such reads are still cached")
	require.LessOrEqual(t, grown, countedGrowth+1<<20, "the heap holds no more than the cache counts")
	require.LessOrEqual(t, countedGrowth, 2*grown+1<<20, "nor does the cache count far more than it holds")
}
