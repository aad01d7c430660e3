// Package runtime is the wazero host for untrusted mcp-wasm providers: it
// compiles modules through a private on-disk cache, validates their imports
// and exports against the mcpw_v1 ABI before instantiating anything, and runs
// every call under a deadline, a memory cap, an output cap and a global
// concurrency bound, with strict validation of everything the guest returns.
//
// A provider that loops, traps, exhausts memory or violates the ABI costs the
// caller a typed error (wrapping an abi kind) and the instance that did it;
// the next call gets a fresh instance, and a provider that keeps failing is
// quarantined with backoff. Nothing a guest does may panic the host.
//
// The package speaks abi types only. It knows nothing of MCP, refuses to
// grant any capability the operator did not (no ambient filesystem,
// environment, network, clock or randomness), and never writes guest text to
// a caller unsanitized.
//
// # Security
//
// The compilation cache directory holds native code that wazero executes;
// its integrity is checked only by a CRC. It must be private to the user
// running the host (New refuses a group- or world-accessible directory).
//
// A module is compiled first by a compile worker, this executable started
// again (see CompileWorkerMain), under a memory limit, a CPU limit and the
// compile timeout, so that a module that makes wazero's compiler take
// gigabytes kills the worker, not the host. Without CompileWorkerMain in
// main, or off Linux, modules compile in the host's process.
package runtime

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/tetratelabs/wazero"

	"github.com/mcp-wasm/mcp-wasm/internal/hostfile"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/compile"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/readcache"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/slots"
)

// Runtime is the host-wide sandbox state shared by all providers: the
// compilation cache and the global concurrency bound.
type Runtime struct {
	cfg      Config
	cache    wazero.CompilationCache
	cacheDir string               // wazero's cache directory: the configured one, or tempDir
	tempDir  string               // a private cache directory for the worker's code, removed on Close; "" with a writable cache dir
	baked    string               // the read-only cache directory under tempDir's links; "" if none
	marks    compile.Marks        // modules that compiled within the limits
	rewrites compile.RewriteCache // rewritten modules, beside the compiled code
	inProc   sync.Once            // the warning that modules compile in-process
	slots    *slots.Slots
	reads    *readcache.Cache // the read cache; nil when off
	log      *slog.Logger
}

// New validates cfg and creates a Runtime.
func New(ctx context.Context, cfg Config) (*Runtime, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	r := &Runtime{cfg: cfg, slots: slots.New(cfg.maxConcurrency), reads: readcache.New(cfg.readCache), log: cfg.logger}
	if r.log == nil {
		r.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	var dir string
	if cfg.cacheDir == "" { // compiled code still goes through a directory, from the worker
		tmp, err := os.MkdirTemp("", "mcp-wasm-compile-*") // mode 0700
		if err != nil {
			return nil, fmt.Errorf("%w: create a temporary compilation directory: %w: set TMPDIR to a writable directory or configure a cache dir", ErrConfig, err)
		}
		dir, r.tempDir = tmp, tmp
	} else {
		abs, err := privateDir(cfg.cacheDir)
		if err != nil {
			return nil, err
		}
		dir, r.rewrites = abs, compile.NewRewriteCache(abs)
		if cfg.cacheReadOnly || !compile.Writable(abs) { // a baked cache
			if dir, err = compile.Overlay(abs, r.log); err != nil {
				return nil, err
			}
			r.tempDir, r.baked, r.rewrites = dir, abs, compile.NewRewriteCache(dir)
		}
	}
	cache, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		r.removeTemp()
		return nil, fmt.Errorf("%w: open compilation cache %s: %w", ErrConfig, dir, err)
	}
	r.cache, r.cacheDir, r.marks = cache, dir, compile.NewMarks(dir)
	return r, nil
}

// Seal writes the cache directory's manifest, so that a runtime can use
// the directory read-only (WithCacheReadOnly). Call it once every provider
// the image serves has loaded. It fails without a cache directory, or on
// one that is itself read-only.
func (r *Runtime) Seal() error {
	if r.tempDir != "" {
		return fmt.Errorf("%w: seal: no writable cache dir: give a cache dir that is not read-only", ErrConfig)
	}
	return compile.Seal(r.cacheDir)
}

// CompileWorkerMain makes this process a compile worker when it was started
// as one, and then exits; otherwise it returns at once. Call it first in
// main, and in TestMain of tests that load modules, before anything else
// reads stdin:
//
//	func main() {
//		runtime.CompileWorkerMain()
//		...
//	}
//
// Without it, the runtime cannot start a worker and compiles modules in its
// own process (logging a warning once), with no limit on what the compiler
// takes.
func CompileWorkerMain() { compile.WorkerMain() }

func (r *Runtime) removeTemp() {
	if r.tempDir != "" {
		_ = os.RemoveAll(r.tempDir)
	}
}

// privateDir creates dir (0700) if needed and refuses it if group or others
// can access it or it is not a directory (hostfile.PrivateDir, the check
// of every command).
func privateDir(dir string) (string, error) {
	abs, err := hostfile.PrivateDir(dir)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return abs, nil
}

// ReadCacheBytes is what the read cache holds now, in bytes.
func (r *Runtime) ReadCacheBytes() int64 { return r.reads.Usage() }

// Close releases the compilation cache, and removes its directory when it
// was a temporary one. Providers must be closed first.
func (r *Runtime) Close(ctx context.Context) error {
	err := r.cache.Close(ctx)
	r.removeTemp()
	return err
}

// enter takes a global concurrency slot for sh (a provider's share, see
// runtime/internal/slots), waiting until ctx is done.
func (r *Runtime) enter(ctx context.Context, sh *slots.Share) error {
	return r.slots.Acquire(ctx, sh)
}

func (r *Runtime) leave(sh *slots.Share) { r.slots.Release(sh) }
