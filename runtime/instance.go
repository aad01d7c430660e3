package runtime

import (
	"context"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/memalloc"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/rootfs"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// opIndex numbers the ABI exports so an instance can cache them in an array.
var opIndex = map[string]int{"describe": 0, abi.OpList: 1, abi.OpTemplates: 2, abi.OpRead: 3, abi.OpComplete: 4, abi.OpChanges: 5}

// instance is one live guest. It serves one call at a time.
type instance struct {
	mod   api.Module
	fns   [6]api.Function
	sink  *stdioSink
	stack [1]uint64
	calls int
	track *rootfs.Track // the lookups of the current call under granted directories
	// mounts are the instance's granted directories, whose per-call state
	// (rootfs.FS.EndCall) is dropped when each call ends.
	mounts []*rootfs.FS
	mem    *memalloc.Allocator // the linear memory, freed by close
}

// newInstance instantiates compiled, running _initialize under ctx, with
// linear memory of at most memLimit bytes reserved up front (internal/memalloc).
// Export handles are looked up once: each lookup allocates a call engine.
func newInstance(ctx context.Context, r wazero.Runtime, compiled wazero.CompiledModule, base wazero.ModuleConfig, st *callState, memLimit uint64) (*instance, error) {
	sink := &stdioSink{st: st}
	cfg := base.WithStdout(sink).WithStderr(sink)
	ctx, mem := memalloc.With(ctx, memLimit)
	mod, err := r.InstantiateModule(withState(ctx, st), compiled, cfg)
	sink.st = nil
	if err != nil {
		mem.Free() // wazero does not free it when data segments or a start function fail
		return nil, err
	}
	in := &instance{mod: mod, sink: sink, mem: mem}
	for op, i := range opIndex {
		in.fns[i] = mod.ExportedFunction(abi.ExportFor(op))
	}
	return in, nil
}

// call runs one export with st reachable by host imports and returns the
// guest's status.
func (in *instance) call(ctx context.Context, op string, st *callState) (uint32, error) {
	in.calls++
	in.sink.st = st
	defer func() {
		in.sink.st = nil
		for _, m := range in.mounts {
			m.EndCall()
		}
	}()
	in.stack[0] = api.EncodeU32(uint32(len(st.input)))
	if err := in.fns[opIndex[op]].CallWithStack(withState(ctx, st), in.stack[:]); err != nil {
		return 0, err
	}
	return api.DecodeU32(in.stack[0]), nil
}

// memoryBytes is the guest's current linear memory size.
func (in *instance) memoryBytes() uint32 {
	if m := in.mod.Memory(); m != nil {
		return m.Size()
	}
	return 0
}

// close closes the module and unmaps its linear memory at once. wazero
// frees the memory itself on Close, except when the module was already
// marked closed by a passed deadline (WithCloseOnContextDone) and no call
// ran since: the free here covers that.
func (in *instance) close(ctx context.Context) {
	_ = in.mod.Close(context.WithoutCancel(ctx))
	in.mem.Free()
	for _, m := range in.mounts {
		m.EndCall()
	}
}
