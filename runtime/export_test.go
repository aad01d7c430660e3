package runtime

import (
	"context"

	"github.com/mcp-wasm/mcp-wasm/runtime/internal/compile"
)

// Precompile compiles wasm as Load would, the compile worker included, and
// stops there: for tests whose clock is about what comes after.
func (r *Runtime) Precompile(ctx context.Context, wasm []byte, cfg ProviderConfig) error {
	prep, err := prepare(wasm, cfg, r.rewrites)
	if err != nil {
		return err
	}
	return r.precompile(ctx, wasm, prep.wasm, cfg)
}

// withPreempt returns c with another preemption mode, for benchmarks that
// compare the instrumentation with wazero's check and with no check.
func (c ProviderConfig) withPreempt(m preemptMode) ProviderConfig { c.preempt = m; return c }

// slotsInUse is the number of global slots held now.
func (r *Runtime) slotsInUse() int { return r.slots.InUse(r.cfg.maxConcurrency) }

// SlotsInUse is slotsInUse, for the package's external tests: a call
// holds a slot while it runs in its guest.
func (r *Runtime) SlotsInUse() int { return r.slotsInUse() }

// slotWaiters is the number of calls waiting for a global slot.
func (r *Runtime) slotWaiters() int { return r.slots.Waiters() }

// WorkersStarted is the number of compile workers this process started.
func WorkersStarted() int64 { return compile.WorkersStarted() }
