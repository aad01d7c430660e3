package compile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcp-wasm/mcp-wasm/internal/hostfile"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin"
)

// RewriteVersion names what the rewrite (wasmbin.Instrument with its
// defaults) emits. It is part of every rewrite cache key: bump it whenever
// the rewrite of a module changes. TestRewriteVersion fails until you do.
const RewriteVersion = 2

// RewriteCache keeps rewritten modules in the private cache directory, by
// the digest of the module as loaded: a restarted server loading the same
// module (the default provider, every time) skips the rewrite, which is
// most of a load's time once wazero's compilation cache has the code. The
// structural pass still runs on every load. The directory is the one
// wazero keeps compiled native code in, private to the user (0700,
// privateDir), so it holds nothing less trusted than that code; each entry
// also carries the SHA-256 of its content, so a truncated or damaged entry
// is a miss, never a module without its checkpoints.
type RewriteCache struct {
	dir string // "": no cache
}

// NewRewriteCache keeps rewrites under cacheDir; "" keeps none.
func NewRewriteCache(cacheDir string) RewriteCache {
	if cacheDir == "" {
		return RewriteCache{}
	}
	return RewriteCache{dir: filepath.Join(cacheDir, fmt.Sprintf("mcp-wasm-rewrite-v%d", RewriteVersion))}
}

// On says whether there is a cache: without one, no digest to take.
func (c RewriteCache) On() bool { return c.dir != "" }

// Key is the entry name of a module's rewrite.
func (c RewriteCache) Key(module []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "mcp-wasm rewrite v%d budget %d\n", RewriteVersion, wasmbin.DefaultBudget)
	h.Write(module)
	return hex.EncodeToString(h.Sum(nil))
}

// maxRewrite bounds a cached rewrite: a module (32 MiB by default, far
// less than this at any sane limit) and its hash.
const maxRewrite = 1 << 30

// Get returns the cached rewrite of the module with key, if whole.
func (c RewriteCache) Get(key string) ([]byte, bool) {
	if c.dir == "" {
		return nil, false
	}
	b, err := hostfile.ReadFile(filepath.Join(c.dir, key), maxRewrite)
	if err != nil || len(b) < sha256.Size {
		return nil, false
	}
	sum := sha256.Sum256(b[sha256.Size:])
	if !bytes.Equal(sum[:], b[:sha256.Size]) {
		return nil, false
	}
	return b[sha256.Size:], true
}

// Put stores a rewrite under key: written whole to a temporary file, then
// renamed into place, so a reader never sees half of it. The cache is an
// optimization: a failure to store is the caller's to log, not to fail on.
func (c RewriteCache) Put(key string, out []byte) error {
	if c.dir == "" {
		return nil
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(c.dir, key+".tmp*")
	if err != nil {
		return err
	}
	sum := sha256.Sum256(out)
	_, err = f.Write(append(sum[:], out...))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(c.dir, key))
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}
