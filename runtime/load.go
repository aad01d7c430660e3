package runtime

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/experimental/sysfs"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/hostfile"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/compile"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/egress"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/grants"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/quarantine"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/rootfs"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/textsafe"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/wasiguard"
)

var (
	wasmMagic       = []byte("\x00asm")
	coreVersion     = []byte{1, 0, 0, 0}
	componentLayer1 = []byte{0x0d, 0x00, 0x01, 0x00}
)

// LoadFile reads a module from path, refusing it before reading if it is
// over the size limit, and loads it like Load.
func (r *Runtime) LoadFile(ctx context.Context, path string, cfg ProviderConfig) (*Provider, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	f, err := hostfile.Open(path) // a regular file, or refused without blocking
	if err != nil {
		return nil, fmt.Errorf("open module: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > int64(cfg.moduleSizeLimit) {
		return nil, tooLarge(fi.Size(), cfg.moduleSizeLimit)
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(cfg.moduleSizeLimit)+1))
	if err != nil {
		return nil, fmt.Errorf("read module %s: %w", path, err)
	}
	return r.Load(ctx, filepath.Base(path), b, cfg)
}

func tooLarge(size int64, limit int) error {
	return fmt.Errorf("%w: module is %d bytes, limit is %d: raise the module size limit or shrink the module (strip symbols: -ldflags='-s -w', -Wl,--strip-all)", ErrModuleTooLarge, size, limit)
}

// checkHeader tells a core module from garbage and from a component.
func checkHeader(b []byte) error {
	if len(b) < 8 || !bytes.Equal(b[:4], wasmMagic) {
		return fmt.Errorf("%w: no \\0asm magic number: the file is not WebAssembly (wrong file, or a .wat text file: compile it with wat2wasm)", ErrNotModule)
	}
	switch v := b[4:8]; {
	case bytes.Equal(v, coreVersion):
		return nil
	case bytes.Equal(v, componentLayer1):
		return fmt.Errorf("%w: this is a component-model binary; mcp-wasm runs core modules: build for wasm32-wasip1 (GOOS=wasip1, --target=wasm32-wasi) instead of a component", ErrNotModule)
	default:
		return fmt.Errorf("%w: unknown binary version %x: rebuild as a WebAssembly 1.0 core module", ErrNotModule, v)
	}
}

// Load compiles, validates and initializes a provider from wasm bytes. hint
// names the module in errors and logs until its describe names it. Nothing
// is instantiated unless the module passes every static check.
func (r *Runtime) Load(ctx context.Context, hint string, wasm []byte, cfg ProviderConfig) (*Provider, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	prep, err := prepare(wasm, cfg, r.rewrites)
	if err != nil {
		return nil, err
	}
	if err := checkImports(prep.mod, cfg.grants); err != nil {
		return nil, err
	}
	p := &Provider{rt: r, cfg: cfg, name: hint, log: r.log.With("provider", hint)}
	if r.baked != "" && !prep.cached { // every module mcp-wasm compile loaded left a rewrite
		p.log.Warn("module not in the read-only cache dir: it compiles at every start, into a temporary directory; bake it into the image with mcp-wasm compile", "cache_dir", r.baked)
	}
	p.brk = quarantine.New(cfg.faultThreshold, cfg.quarantineBase, cfg.quarantineMax)
	if err := r.precompile(ctx, wasm, prep.wasm, cfg); err != nil {
		return nil, err
	}
	p.wr = newWazeroRuntime(ctx, r, cfg)
	if err := p.compile(ctx, prep.wasm); err != nil {
		_ = p.wr.Close(ctx)
		return nil, err
	}
	if prep.store != nil {
		if err := prep.store(); err != nil {
			p.log.Warn("rewrite cache: not stored", "err", err)
		}
	}
	p.log.Debug("module compiled", "rewrite_cached", prep.cached)
	if err := p.initialize(ctx); err != nil {
		p.closeAll(ctx)
		return nil, err
	}
	p.startReaper() // poolidle.go
	return p, nil
}

// newWazeroRuntime makes the per-provider wazero runtime: the memory cap is
// per runtime. wazero's own deadline check stays off: the module's
// instrumentation stops the guest (see prepare and preempt.go), at every
// loop, call and return, where wazero's check sees loops only and costs
// tens of nanoseconds per iteration. The feature set is pinned to the one
// the structural pass decodes.
func newWazeroRuntime(ctx context.Context, r *Runtime, cfg ProviderConfig) wazero.Runtime {
	return wazero.NewRuntimeWithConfig(ctx, compile.RuntimeConfig(r.cache, uint32(cfg.memoryLimit/pageSize), cfg.preempt == preemptWazero))
}

// precompile has a compile worker compile wasm (the module as rewritten;
// original is the module as loaded) into wazero's cache directory, so that
// the compilation that follows in this process finds it there. A trusted
// module (Config.WithTrustedModule), or one that compiled in a worker
// within the same limits before (the marks), skips the worker.
func (r *Runtime) precompile(ctx context.Context, original, wasm []byte, cfg ProviderConfig) error {
	lim := cfg.compileLimits()
	if r.cfg.trusted[sha256.Sum256(original)] || r.marks.Has(wasm, lim) {
		return nil
	}
	err := compile.RunWorker(ctx, wasm, r.cacheDir, lim)
	if errors.Is(err, compile.ErrNoWorker) {
		r.inProc.Do(func() {
			r.log.Warn("modules compile in the host's process, without the compile worker's limits: call runtime.CompileWorkerMain first in main")
		})
		return nil
	}
	if err != nil {
		return err
	}
	if err := r.marks.Mark(wasm, lim); err != nil {
		r.log.Warn("compiled-module mark: not stored", "err", err)
	}
	return nil
}

// compileLimits is what the compile worker and its marks get of cfg.
func (cfg ProviderConfig) compileLimits() compile.Limits {
	return compile.Limits{Pages: uint32(cfg.memoryLimit / pageSize), CloseOnDone: cfg.preempt == preemptWazero,
		Memory: cfg.compileMemory, Timeout: cfg.compileTimeout}
}

func (p *Provider) compile(ctx context.Context, wasm []byte) error {
	cctx, cancel := context.WithTimeout(ctx, p.cfg.compileTimeout)
	defer cancel()
	compiled, err := compileModule(experimental.WithCompilationWorkers(cctx, 2), p.wr, wasm)
	if err != nil {
		if cctx.Err() != nil {
			return fmt.Errorf("%w: compilation did not finish within %s: raise the compile timeout or shrink the module", ErrCompile, p.cfg.compileTimeout)
		}
		return fmt.Errorf("%w: invalid module: %s", ErrCompile, textsafe.Sanitize(textsafe.FirstLine(err.Error(), 200), 200))
	}
	p.compiled = compiled
	exports, err := checkExports(compiled)
	if err != nil {
		return err
	}
	p.exports = exports
	return nil
}

// compileModule is wazero's CompileModule, with a panic turned into an
// error: wazero panics when it cannot map memory for the code.
func compileModule(ctx context.Context, wr wazero.Runtime, wasm []byte) (c wazero.CompiledModule, err error) {
	defer func() {
		if v := recover(); v != nil {
			c, err = nil, fmt.Errorf("the compiler failed: %v", v)
		}
	}()
	return wr.CompileModule(ctx, wasm)
}

// initialize links the host modules, makes the first instance, calls
// describe, and mounts the granted directories, each at its real path or
// at the guest path the operator gave (never where the provider asks).
func (p *Provider) initialize(ctx context.Context) error {
	if err := wasiguard.Instantiate(ctx, p.wr, sortedKeys(wasiImports)); err != nil {
		return fmt.Errorf("%w: link WASI: %w", ErrInit, err)
	}
	if err := instantiateHostModules(ctx, p.wr, egress.New(p.cfg.grants.HTTP.egressGrant(), func() *slog.Logger { return p.log })); err != nil {
		return fmt.Errorf("%w: %w", ErrInit, err)
	}
	if err := p.rt.enter(ctx, &p.share); err != nil {
		return fmt.Errorf("%w: waiting for a global slot: %w", ErrInit, err)
	}
	defer p.rt.leave(&p.share)
	p.modCfg = grantModuleConfig(wazero.NewModuleConfig().WithName("").WithEnv(goMemLimitEnv, goMemLimit(p.cfg.memoryLimit)).WithStartFunctions(abi.ExportInitialize), p.cfg.grants)
	start := time.Now()
	first, err := p.newInstance(ctx)
	took := time.Since(start)
	if err != nil {
		return fmt.Errorf("%w: instantiate: %w", ErrInit, err)
	}
	if err := p.describe(ctx, first); err != nil {
		first.close(ctx)
		return err
	}
	p.pool = newPool(p.cfg.poolSize, p.newInstance)
	if len(p.cfg.grants.Dirs) == 0 {
		p.pool.put(first, took)
		return nil
	}
	// The describe instance ran without mounts; the pool's instances get them.
	first.close(ctx)
	if err := p.mounts(); err != nil {
		return err
	}
	start = time.Now()
	in, err := p.newInstance(ctx)
	if err != nil {
		return fmt.Errorf("%w: instantiate with granted directories: %w", ErrInit, err)
	}
	p.pool.put(in, time.Since(start))
	return nil
}

// describe calls mcpw_v1_describe and checks the result against the exports.
func (p *Provider) describe(ctx context.Context, in *instance) error {
	cctx, cancel := context.WithTimeout(ctx, p.cfg.initTimeout)
	defer cancel()
	var d abi.Describe
	err := p.exchange(cctx, in, "describe", []byte("{}"), &d)
	if err != nil {
		return fmt.Errorf("%w: describe: %w", ErrInit, err)
	}
	if err := d.Validate(); err != nil {
		return fmt.Errorf("%w: describe: %w", ErrInit, err)
	}
	if err := p.cfg.override(&d); err != nil {
		return err
	}
	ops := map[string]bool{}
	for _, op := range d.Operations {
		if !p.exports[op] {
			return fmt.Errorf("%w: describe declares operation %q but the module does not export %s: export it or remove it from operations", ErrMissingExport, op, abi.ExportFor(op))
		}
		ops[op] = true
	}
	p.desc, p.space, p.ops = d, abi.URISpace(d.URISpace), ops
	p.name = d.Name
	p.log = p.rt.log.With("provider", d.Name)
	return nil
}

// mounts opens each granted directory (or the directory of granted single
// files, see grants.Plan and rootfs.Open) as a read-only rootfs.FS on an os.Root,
// which refuses paths and symlinks that leave it, mounted at its real path
// or at the operator's guest path. Each instance mounts copies of them
// (instanceConfig).
func (p *Provider) mounts() error {
	plans, err := grants.Plan(p.cfg.grants.set().Dirs)
	if err != nil {
		return err
	}
	for _, m := range plans {
		fsys, closer, err := rootfs.Open(m.Host, m.Only, m.Granted[0])
		if err != nil {
			return err
		}
		p.roots = append(p.roots, closer)
		p.mountFS = append(p.mountFS, guestMountFS{guest: m.Guest, fs: fsys})
	}
	return nil
}

// guestMountFS is one granted directory and where the guest sees it.
type guestMountFS struct {
	guest string
	fs    *rootfs.FS
}

// instanceConfig is the module config of a new instance: its mounts record
// the lookups of its calls into track, for the read cache.
func (p *Provider) instanceConfig(track *rootfs.Track) (wazero.ModuleConfig, []*rootfs.FS) {
	if len(p.mountFS) == 0 {
		return p.modCfg, nil
	}
	fsCfg := wazero.NewFSConfig()
	mounts := make([]*rootfs.FS, 0, len(p.mountFS))
	files := &rootfs.OpenFiles{}
	for _, m := range p.mountFS {
		own := m.fs.ForInstance(track, files)
		fsCfg = fsCfg.(sysfs.FSConfig).WithSysFSMount(own, m.guest)
		mounts = append(mounts, own)
	}
	return p.modCfg.WithFSConfig(fsCfg), mounts
}

// newInstance makes a fresh instance under the init deadline. The caller
// holds a global concurrency slot (guarded, or initialize at load).
func (p *Provider) newInstance(ctx context.Context) (*instance, error) {
	ictx, cancel := context.WithTimeout(ctx, p.cfg.initTimeout)
	defer cancel()
	st := p.newState(nil)
	st.initializing = true
	start := time.Now()
	var track *rootfs.Track // lookups are recorded only for the read cache
	if p.rt.reads != nil {
		track = &rootfs.Track{}
	}
	modCfg, mounts := p.instanceConfig(track)
	in, err := newInstance(ictx, p.wr, p.compiled, modCfg, st, p.cfg.memoryLimit/pageSize*pageSize)
	for _, m := range mounts { // what _initialize looked up
		m.EndCall()
	}
	if in != nil {
		in.track, in.mounts = track, mounts
	}
	p.flushLogs(ctx, "initialize", st)
	if err != nil {
		return nil, classify(err, nil, 0, 0)
	}
	p.stats.instantiated.Add(1)
	p.log.Debug("instance created", "took", time.Since(start))
	return in, nil
}
