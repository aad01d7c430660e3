package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/internal/testlog"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin"
)

// TestRewriteCache: a module's rewrite is stored on its first load and
// read back on the next, byte for byte what the rewrite gives; a damaged
// or truncated entry is a miss and is rewritten afresh, never used.
func TestRewriteCache(t *testing.T) {
	wasm := readFile(t, "../testdata/hostile/spin.wasm")
	rc := newRewriteCache(t.TempDir())
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

	entry := filepath.Join(rc.dir, rc.key(wasm))
	stored, err := os.ReadFile(entry)
	require.NoError(t, err)
	for name, damaged := range map[string][]byte{
		"a flipped byte": append(append([]byte{}, stored[:len(stored)-1]...), stored[len(stored)-1]^0xff),
		"truncated":      stored[:len(stored)/2],
		"empty":          {},
	} {
		require.NoError(t, os.WriteFile(entry, damaged, 0o600))
		p, err := prepare(wasm, testkit.Limits(NewProviderConfig()), rc)
		require.NoError(t, err, name)
		require.False(t, p.cached, "%s: a damaged entry is a miss", name)
		require.Equal(t, fresh, p.wasm, name)
	}

	off, err := prepare(wasm, testkit.Limits(NewProviderConfig()), rewriteCache{})
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

// rewriteVersionModules are the modules TestRewriteVersion rewrites, by
// name: the hostile fixtures (testdata/hostile) that the structural pass
// accepts, and the runtime's own probes (runtime/testdata). A fixed set, so that
// a fixture added later does not change the digest; a new kind of module
// that the rewrite must pin down is added here with a new digest.
var rewriteVersionModules = []string{
	"abi_v2.wasm", "abi_v2_exports.wasm", "big_max.wasm", "big_min.wasm", "describe_bad.wasm",
	"describe_error.wasm", "env_abort.wasm", "exprec_describe.wasm", "foreign.wasm", "good.wasm",
	"grow.wasm", "grow_start.wasm", "import_bad_sig.wasm", "import_env_system.wasm",
	"import_mcpw_unknown.wasm", "import_path_open.wasm", "import_sock_accept.wasm",
	"init_bad_sig.wasm", "init_imports.wasm", "logspam.wasm", "loop.wasm", "loop_describe.wasm",
	"loop_initialize.wasm", "loop_start.wasm", "no_describe.wasm", "no_memory.wasm", "oob.wasm",
	"op_bad_sig.wasm", "op_not_exported.wasm", "op_undeclared.wasm", "output.wasm", "payload.wasm",
	"proc_exit.wasm", "raw_content.wasm", "recurse.wasm", "spin.wasm", "statspam.wasm",
	"trap_initialize.wasm", "trap_start.wasm", "traps.wasm", "wasi_fs_loop.wasm",
	"wasi_init_random.wasm", "wasi_loop.wasm", "wasi_stdout.wasm",
	"testdata/grantprobe.wasm", "testdata/httpprobe.wasm",
}

// TestRewriteVersion: the rewrite of fixed modules is what it was when
// rewriteVersion was set. If this fails, the rewrite changed: bump
// rewriteVersion in rewritecache.go (so that no server loads a rewrite of
// the old kind from its cache) and record the new digest here.
func TestRewriteVersion(t *testing.T) {
	const version, digest = 1, "cf2fda28f475744a09a9ff192e8767ecd0adea68b887bde5e5ad86005ea6998d"
	var paths []string
	for _, m := range rewriteVersionModules {
		if filepath.Dir(m) == "." {
			m = filepath.Join("..", "testdata", "hostile", m)
		}
		paths = append(paths, m)
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		mod, err := wasmbin.Parse(readFile(t, p), wasmbin.DefaultLimits())
		require.NoError(t, err, p)
		out, err := mod.Instrument(wasmbin.Options{})
		require.NoError(t, err, p)
		h.Write([]byte(filepath.Base(p)))
		h.Write(out)
	}
	got := hex.EncodeToString(h.Sum(nil))
	require.Equal(t, version, rewriteVersion, "rewriteVersion changed: record the digest of this version: %s", got)
	require.Equal(t, digest, got, "the rewrite of the test modules changed: bump rewriteVersion in rewritecache.go and record the new digest in TestRewriteVersion")
}
