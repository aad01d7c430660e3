package runtime

import (
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/internal/testlog"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/compile"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin"
)

// TestRewriteCache: a module's rewrite is stored on its first load and
// read back on the next, byte for byte what the rewrite gives (damaged
// entries: runtime/internal/compile's TestRewriteCacheEntries).
func TestRewriteCache(t *testing.T) {
	wasm := readFile(t, "../testdata/hostile/spin.wasm")
	rc := compile.NewRewriteCache(t.TempDir())
	mod, err := wasmbin.Parse(wasm, wasmbin.DefaultLimits())
	require.NoError(t, err)
	fresh, err := mod.Instrument(wasmbin.Options{})
	require.NoError(t, err)

	first, err := prepare(wasm, testkit.Limits(NewProviderConfig()), rc)
	require.NoError(t, err)
	require.False(t, first.cached)
	require.Equal(t, fresh, first.wasm)
	require.NoError(t, first.store())

	second, err := prepare(wasm, testkit.Limits(NewProviderConfig()), rc)
	require.NoError(t, err)
	require.True(t, second.cached, "the stored rewrite is used")
	require.Nil(t, second.store)
	require.Equal(t, fresh, second.wasm)

	off, err := prepare(wasm, testkit.Limits(NewProviderConfig()), compile.RewriteCache{})
	require.NoError(t, err)
	require.False(t, off.cached)
	require.Nil(t, off.store, "no cache directory: nothing to store")
	require.Equal(t, fresh, off.wasm)

	other := readFile(t, "../testdata/hostile/good.wasm")
	p, err := prepare(other, testkit.Limits(NewProviderConfig()), rc)
	require.NoError(t, err)
	require.False(t, p.cached, "another module has another key")
}

// TestRewriteCacheStillPreempts: a provider loaded from the rewrite cache
// (a restarted server) is stopped at its deadline exactly as a freshly
// rewritten one: what the cache hands back carries the checkpoints.
func TestRewriteCacheStillPreempts(t *testing.T) {
	spin := readFile(t, "../testdata/hostile/spin.wasm")
	dir := filepath.Join(t.TempDir(), "cache") // made private by the runtime
	for i, want := range []bool{false, true} {
		var log testlog.Buffer
		rt := newTestRuntime(t, NewConfig().WithCacheDir(dir).WithLogger(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))))
		p := load(t, rt, spin, testkit.Limits(NewProviderConfig()).WithTimeout(50*time.Millisecond))
		require.Contains(t, log.String(), "rewrite_cached="+map[bool]string{false: "false", true: "true"}[want], "load %d", i)
		start := time.Now()
		_, err := p.Read(t.Context(), "evil:loopif")
		require.ErrorIs(t, err, abi.ErrTimeout, "load %d", i)
		require.Less(t, time.Since(start), 10*time.Second)
	}
}
