package compile

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin"
)

// TestRewriteCacheEntries: a stored rewrite reads back whole; a damaged,
// truncated or empty entry is a miss, never used; no directory stores and
// finds nothing; another module has another key.
func TestRewriteCacheEntries(t *testing.T) {
	rc := NewRewriteCache(t.TempDir())
	require.True(t, rc.On())
	module, out := []byte("\x00asm module"), []byte("the rewrite")
	key := rc.Key(module)
	_, ok := rc.Get(key)
	require.False(t, ok, "nothing stored yet")
	require.NoError(t, rc.Put(key, out))
	got, ok := rc.Get(key)
	require.True(t, ok)
	require.Equal(t, out, got)
	require.NotEqual(t, key, rc.Key([]byte("\x00asm other")))

	entry := filepath.Join(rc.dir, key)
	stored, err := os.ReadFile(entry)
	require.NoError(t, err)
	for name, damaged := range map[string][]byte{
		"a flipped byte": append(append([]byte{}, stored[:len(stored)-1]...), stored[len(stored)-1]^0xff),
		"truncated":      stored[:len(stored)/2],
		"empty":          {},
	} {
		require.NoError(t, os.WriteFile(entry, damaged, 0o600))
		_, ok := rc.Get(key)
		require.False(t, ok, "%s: a damaged entry is a miss", name)
	}

	var off RewriteCache
	require.False(t, off.On())
	require.NoError(t, off.Put(key, out))
	_, ok = off.Get(key)
	require.False(t, ok, "no cache directory: nothing stored")
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
// RewriteVersion was set. If this fails, the rewrite changed: bump
// RewriteVersion in rewrite.go (so that no server loads a rewrite of
// the old kind from its cache) and record the new digest here.
func TestRewriteVersion(t *testing.T) {
	const version, digest = 2, "79cd1ebd4a5aa72c204b1a680c6ed8f3ebfd5bcc34f705399d482f6def21d15c"
	var paths []string
	for _, m := range rewriteVersionModules {
		if filepath.Dir(m) == "." {
			m = filepath.Join("..", "..", "..", "testdata", "hostile", m)
		} else {
			m = filepath.Join("..", "..", m) // runtime/testdata
		}
		paths = append(paths, m)
	}
	sort.Slice(paths, func(i, j int) bool { return sortKey(paths[i]) < sortKey(paths[j]) })
	h := sha256.New()
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		mod, err := wasmbin.Parse(b, wasmbin.DefaultLimits())
		require.NoError(t, err, p)
		out, err := mod.Instrument(wasmbin.Options{})
		require.NoError(t, err, p)
		h.Write([]byte(filepath.Base(p)))
		h.Write(out)
	}
	got := hex.EncodeToString(h.Sum(nil))
	require.Equal(t, version, RewriteVersion, "RewriteVersion changed: record the digest of this version: %s", got)
	require.Equal(t, digest, got, "the rewrite of the test modules changed: bump RewriteVersion in rewrite.go and record the new digest in TestRewriteVersion")
}

// sortKey orders the paths as the digest was recorded, relative to
// runtime/: the hostile fixtures ("../testdata/hostile/...") before the
// runtime's own ("testdata/...").
func sortKey(p string) string {
	rel, err := filepath.Rel(filepath.Join("..", ".."), p)
	if err != nil {
		return p
	}
	return rel
}
