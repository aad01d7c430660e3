package runtime

import (
	"context"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/fault"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin"
)

// Preemption. Every module is instrumented at load (wasmbin.Instrument):
// it counts down a budget at every function entry, loop, return point and
// long straight run, and calls preemptCheck when the budget is spent, at
// most every wasmbin.DefaultBudget instructions. preemptCheck runs in Go,
// so a spinning guest reaches a point where the Go scheduler, the garbage
// collector and signal handling can run; and it stops the guest, with a
// trap the guest cannot catch, once the call's context is done or its
// deadline has passed. The deadline is read from the clock, not only from
// the context's timer, so a guest is stopped on time even when that timer
// has not run yet.
//
// The verdict comes from what the host knows: its own context and clock.
// No number the guest can choose (an exit code, a return value) can make a
// fault look like a timeout or a cancellation, or the reverse.

// preemptMode selects how guests are stopped. Only preemptInstrument is
// safe; the others exist for benchmarks (export_test.go) that measure what
// the instrumentation costs against wazero's own check and against none.
type preemptMode int

const (
	preemptInstrument preemptMode = iota // checkpoints in the module (the default)
	preemptWazero                        // wazero's WithCloseOnContextDone: loops only
	preemptOff                           // nothing stops a guest: measurement only
)

func preemptCheck(ctx context.Context, _ api.Module, stack []uint64) {
	fault.StopIfDone(ctx)
	stack[0] = api.EncodeI64(wasmbin.DefaultBudget)
}

// instantiatePreempt links the check function every instrumented module
// imports.
func instantiatePreempt(ctx context.Context, r wazero.Runtime) error {
	_, err := r.NewHostModuleBuilder(wasmbin.PreemptModule).NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(preemptCheck), nil, []api.ValueType{api.ValueTypeI64}).
		Export(wasmbin.PreemptFunc).Instantiate(ctx)
	return err
}
