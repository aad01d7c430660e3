package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

const (
	// Headroom is the garbage the heap may gather between two collections
	// once Percent of the live heap would be more. GOGC is proportional:
	// at 400 a server whose live heap is 4 MiB (the MCP layer alone, the
	// native anchor) collects at 20 MiB, but one that keeps 20 MiB live (a
	// Go guest's decoded module and instance, wazero's state, the read
	// cache) at 100 MiB, for the same garbage per request. So after each
	// collection the percent is set to what gives Headroom over the live
	// heap, at most Percent and at least MinPercent: the native anchor's
	// allowance (400 % of 4 MiB), whatever else is live. The peak then
	// grows with what is live, not five times it (docs/performance.md).
	Headroom = 16 << 20
	// MinPercent is the lowest GOGC the tuner sets: past a live heap of
	// Headroom*100/MinPercent (32 MiB) the heap may grow by half of it.
	MinPercent = 50
)

// percentFor is the GOGC that gives Headroom over a live heap of live
// bytes, clamped to [MinPercent, most].
func percentFor(live uint64, most int) int {
	if live == 0 {
		return most
	}
	p := uint64(Headroom) * 100 / live
	return int(min(max(p, uint64(MinPercent)), uint64(most)))
}

// tuner sets GOGC after every collection from the live heap it left. It
// runs on the runtime's finalizer goroutine, from a finalizer that re-arms
// itself on an object nothing else references, so it costs no goroutine of
// its own and stops with the process.
type tuner struct {
	most   int
	cycles atomic.Uint64 // collections seen, for tests
	set    atomic.Int64  // the percent set last
	sample []metrics.Sample
}

// sentinel is what the tuner's finalizer is set on: large enough not to
// share a tiny-allocator block with anything (its finalizer would then
// wait for the block's other objects).
type sentinel struct{ _ [64]byte }

var running atomic.Pointer[tuner]

// startTuner starts the tuner once per process, with most as its ceiling.
func startTuner(most int) *tuner {
	t := &tuner{most: most, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	t.set.Store(int64(most))
	if !running.CompareAndSwap(nil, t) {
		return running.Load()
	}
	runtime.SetFinalizer(&sentinel{}, t.cycle)
	return t
}

// cycle runs after a collection freed the sentinel: it re-arms on the same
// object and sets GOGC for the live heap the collection measured.
func (t *tuner) cycle(s *sentinel) {
	runtime.SetFinalizer(s, t.cycle)
	metrics.Read(t.sample)
	live := t.sample[0].Value.Uint64()
	if p := percentFor(live, t.most); int64(p) != t.set.Load() {
		debug.SetGCPercent(p)
		t.set.Store(int64(p))
	}
	t.cycles.Add(1)
}
