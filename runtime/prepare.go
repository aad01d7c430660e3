package runtime

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/runtime/internal/compile"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin"
)

// prepared is a module that passed the door: its header, a structural
// pass over every section and instruction within the host's limits, and its
// import kinds. wasm is what the compiler gets: the module rewritten with
// preemption checkpoints and bounded tables.
type prepared struct {
	mod  *wasmbin.Module
	wasm []byte
	// cached: wasm came from the rewrite cache. store, when set, puts the
	// fresh rewrite there; Load calls it once the module compiled.
	cached bool
	store  func() error
}

// prepare checks and rewrites a module before wazero sees any of it; the
// rewrite comes from rc when it has it (and goes there when not).
func prepare(b []byte, cfg ProviderConfig, rc compile.RewriteCache) (*prepared, error) {
	if len(b) > cfg.moduleSizeLimit {
		return nil, tooLarge(int64(len(b)), cfg.moduleSizeLimit)
	}
	if err := checkHeader(b); err != nil {
		return nil, err
	}
	mod, err := parse(b, cfg)
	if err != nil {
		return nil, err
	}
	if err := checkImportKinds(mod); err != nil {
		return nil, err
	}
	if cfg.preempt != preemptInstrument {
		return &prepared{mod: mod, wasm: b}, nil
	}
	var key string
	if rc.On() { // without a cache, no digest to take
		key = rc.Key(b)
		if out, ok := rc.Get(key); ok {
			return &prepared{mod: mod, wasm: out, cached: true}, nil
		}
	}
	out, err := mod.Instrument(wasmbin.Options{})
	if err != nil {
		return nil, fmt.Errorf("%w: instrument: %w", ErrNotModule, err)
	}
	p := &prepared{mod: mod, wasm: out}
	if key != "" {
		p.store = func() error { return rc.Put(key, out) }
	}
	return p, nil
}

// parse runs the structural pass and checks the memory against the
// provider's memory limit.
func parse(b []byte, cfg ProviderConfig) (*wasmbin.Module, error) {
	mod, err := wasmbin.Parse(b, wasmbin.DefaultLimits())
	var lim *wasmbin.LimitError
	switch {
	case errors.As(err, &lim) && strings.HasPrefix(lim.Limit, "Compile") || errors.As(err, &lim) && lim.Limit == "FunctionCompileMemory":
		return nil, fmt.Errorf("%w: %w: the compiler would need more than the host allows; split the largest functions, or shrink the module (abi/ABI.md §9.1 lists what each instruction costs)", ErrLimit, err)
	case errors.As(err, &lim):
		return nil, fmt.Errorf("%w: %w: no toolchain produces such a module; rebuild it from source, or do not run it", ErrLimit, err)
	case errors.Is(err, wasmbin.ErrFeature):
		return nil, fmt.Errorf("%w: %w: rebuild the module without it (mcp-wasm runs WebAssembly 2.0: no threads, tail calls, exceptions or multiple memories)", ErrCompile, err)
	case err != nil:
		return nil, fmt.Errorf("%w: malformed module: %w: the file is truncated or corrupt; rebuild or re-download it", ErrNotModule, err)
	}
	pages := cfg.memoryLimit / pageSize
	for _, mem := range mod.Memories {
		if uint64(mem.Min) > pages {
			return nil, fmt.Errorf("%w: the module's minimum memory is %d pages (%d MiB), over the memory limit of %d MiB: raise the memory limit or lower the module's initial memory", ErrLimit, mem.Min, uint64(mem.Min)*pageSize>>20, cfg.memoryLimit>>20)
		}
	}
	return mod, nil
}

// checkImportKinds rejects imports of anything but functions before compiling.
func checkImportKinds(mod *wasmbin.Module) error {
	for _, im := range mod.Imports {
		if im.Kind != wasmbin.KindFunc {
			return fmt.Errorf("%w: module imports %s %s.%s: providers may import only functions; define and export their own memory, tables and globals", ErrForbiddenImport, importKindName(im.Kind), quote(im.Module), quote(im.Name))
		}
	}
	return nil
}

var importKinds = [...]string{"function", "table", "memory", "global", "tag"}

func importKindName(k byte) string {
	if int(k) < len(importKinds) {
		return importKinds[k]
	}
	return "unknown"
}
