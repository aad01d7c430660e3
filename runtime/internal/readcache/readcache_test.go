package readcache

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/rootfs"
)

// lookups stats names in dir through a granted mount, as a guest's call
// does, and returns what the mount recorded.
func lookups(t *testing.T, dir string, names ...string) []rootfs.Stamp {
	fsys, closer, err := rootfs.Open(dir, nil, dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = closer.Close() })
	track := &rootfs.Track{}
	own := fsys.ForInstance(track, &rootfs.OpenFiles{})
	for _, n := range names {
		_, _ = own.Stat(n)
	}
	own.EndCall()
	require.False(t, track.Overflow)
	return append([]rootfs.Stamp(nil), track.Stamps...)
}

func text(s string) *abi.ReadResult {
	return &abi.ReadResult{Contents: []abi.Content{{URI: "x:y", Text: &s}}}
}

// TestCache_servesWhileFilesAreCurrent: a read is served again while the
// files it looked up are as they were, and not once one changed, one
// appeared where none was, or its time ran out.
func TestCache_servesWhileFilesAreCurrent(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(f, []byte("one"), 0o644))
	c := New(1 << 20)
	owner := new(int)
	now := time.Now()
	c.Put(owner, "x:f", text("one"), now.Add(time.Hour), lookups(t, dir, "f", "absent"))
	got, ok := c.Get(owner, "x:f", now)
	require.True(t, ok)
	require.Equal(t, "one", *got.Contents[0].Text)
	got.Contents[0].URI = "rewritten:by/the/caller" // as the served layer does
	got, _ = c.Get(owner, "x:f", now)
	require.Equal(t, "x:y", got.Contents[0].URI, "a hit's contents are a copy")
	_, ok = c.Get(new(int), "x:f", now)
	require.False(t, ok, "another provider's entry")
	_, ok = c.Get(owner, "x:f", now.Add(2*time.Hour))
	require.False(t, ok, "expired")

	c.Put(owner, "x:f", text("one"), now.Add(time.Hour), lookups(t, dir, "f", "absent"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "absent"), nil, 0o644))
	_, ok = c.Get(owner, "x:f", now)
	require.False(t, ok, "a file appeared where the read found none")

	c.Put(owner, "x:f", text("one"), now.Add(time.Hour), lookups(t, dir, "f"))
	require.NoError(t, os.WriteFile(f, []byte("four"), 0o644))
	_, ok = c.Get(owner, "x:f", now)
	require.False(t, ok, "the file changed")
	require.Zero(t, c.Usage(), "misses dropped their entries")
}

// TestCache_drops: entries go by provider, by URI and by host path.
func TestCache_drops(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "f"), nil, 0o644))
	c := New(1 << 20)
	a, b := new(int), new(int)
	exp := time.Now().Add(time.Hour)
	put := func() {
		c.Put(a, "x:1", text("1"), exp, nil)
		c.Put(a, "x:2", text("2"), exp, lookups(t, dir, "sub/f"))
		c.Put(b, "x:1", text("1"), exp, nil)
	}
	has := func(p any, uri string) bool { _, ok := c.Get(p, uri, time.Now()); return ok }
	put()
	c.DropURIs(a, []string{"x:1"})
	require.Equal(t, []bool{false, true, true}, []bool{has(a, "x:1"), has(a, "x:2"), has(b, "x:1")})
	c.DropHostPaths(a, []string{filepath.Join(dir, "sub")})
	require.False(t, has(a, "x:2"), "under a changed host path")
	put()
	c.DropProvider(a)
	require.Equal(t, []bool{false, false, true}, []bool{has(a, "x:1"), has(a, "x:2"), has(b, "x:1")})
	var off *Cache // a budget of 0: no cache, no panics
	off.Put(a, "x:1", text("1"), exp, nil)
	_, ok := off.Get(a, "x:1", time.Now())
	require.False(t, ok)
	require.Nil(t, New(0))
}

// TestCacheable: only a public hint with a positive ttl is kept.
func TestCacheable(t *testing.T) {
	now := time.Now()
	_, ok := Cacheable(nil, now)
	require.False(t, ok)
	_, ok = Cacheable(&abi.CacheHint{TTLMs: 1000, Scope: abi.ScopePrivate}, now)
	require.False(t, ok)
	_, ok = Cacheable(&abi.CacheHint{TTLMs: 0, Scope: abi.ScopePublic}, now)
	require.False(t, ok)
	until, ok := Cacheable(&abi.CacheHint{TTLMs: 1500, Scope: abi.ScopePublic}, now)
	require.True(t, ok)
	require.Equal(t, now.Add(1500*time.Millisecond), until)
}

// heapInUse is the live heap after a full collection.
func heapInUse() int64 {
	goruntime.GC()
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestReadCache_tinyEntries: many tiny reads cost the cache their entry,
// list element, map slot and result as well as their bytes. Before, an
// entry counted its strings and 64 bytes, a quarter of what it held.
func TestReadCache_tinyEntries(t *testing.T) {
	const budget = 4 << 20
	c := New(budget)
	expires := time.Now().Add(time.Hour)
	put := func(i int) {
		text := strings.Repeat("x", 1+(i&15))
		c.Put(nil, "evil:tiny/"+strconv.Itoa(i), &abi.ReadResult{Contents: []abi.Content{{URI: "evil:tiny", Text: &text}}}, expires, nil)
	}
	for i := range 1000 { // the map's first tables
		put(-1 - i)
	}
	before, counted := heapInUse(), c.Usage()
	for i := range 100_000 {
		put(i)
	}
	require.LessOrEqual(t, c.Usage(), int64(budget))
	grown, countedGrowth := heapInUse()-before, c.Usage()-counted
	t.Logf("heap grew %d bytes; the cache counts %d more (%d entries)", grown, countedGrowth, len(c.entries))
	require.LessOrEqual(t, grown, countedGrowth+256<<10, "the heap holds no more than the cache counts")
	require.LessOrEqual(t, countedGrowth, 2*grown+256<<10, "nor does the cache count far more than it holds")
}
