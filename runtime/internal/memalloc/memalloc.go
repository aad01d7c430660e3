// Package memalloc allocates guest linear memory for wazero: each
// instance's memory reserved once up to its maximum, committed as it grows,
// never copied or moved, and unmapped when the instance closes; on the Go
// heap where nothing can be reserved. It never hands out more than the
// provider's memory limit.
package memalloc

import (
	"context"
	"math"
	"sync"

	"github.com/tetratelabs/wazero/experimental"
)

// Guest linear memory is allocated by the host, not by wazero's default,
// which keeps it in a Go slice that memory.grow extends with append: every
// time the capacity runs out the whole memory is copied into a slice 1.25
// times larger and the old one is left to the garbage collector, so a guest
// growing page by page to 1 GiB left about 4 GiB of copies behind it, and
// eight growing to 64 MiB at once over 1 GiB. Here each instance's memory is
// reserved up to its maximum once, committed as it grows (never copied,
// never moved) and handed back to the operating system when the instance is
// closed (memalloc_unix.go). Where no reservation can be made it lives on
// the Go heap as wazero would keep it.

// reserve is reserveMemory; tests replace it to exercise the heap fallback.
var reserve = reserveMemory

// Allocator hands out the linear memories of one instantiation and
// remembers them, so that the instance frees them when it closes and the
// instantiation frees them when it fails: wazero drops a module whose data
// segments or start function fail without freeing its memory.
type Allocator struct {
	limit uint64 // the provider's memory limit: no reservation is larger
	mems  []experimental.LinearMemory
}

// With returns ctx carrying a fresh allocator for one
// InstantiateModule call, with every memory capped at limit bytes.
func With(ctx context.Context, limit uint64) (context.Context, *Allocator) {
	a := &Allocator{limit: limit}
	return experimental.WithMemoryAllocator(ctx, a), a
}

// Allocate implements experimental.MemoryAllocator. max is the module's
// maximum, which wazero has already clamped to the runtime's limit.
func (a *Allocator) Allocate(_, max uint64) experimental.LinearMemory {
	max = min(max, a.limit)
	if max > math.MaxInt {
		max = math.MaxInt // a 32-bit host: the reservation fails and the heap is used
	}
	var m experimental.LinearMemory
	if r := reserve(max); r != nil {
		m = r
	} else {
		m = &heapMemory{max: max}
	}
	a.mems = append(a.mems, m)
	return m
}

// Free frees every memory handed out. Free is idempotent, so this is safe
// after wazero freed them itself.
func (a *Allocator) Free() {
	if a == nil {
		return
	}
	for _, m := range a.mems {
		m.Free()
	}
}

// heapMemory is linear memory on the Go heap, grown as wazero grows its
// own: append, which copies into a slice 1.25 times larger when the
// capacity runs out. It is the fallback where nothing can be reserved, no
// worse than wazero's default. Two alternatives were measured and are worse
// (RATIONALE.md): doubling leaves larger garbage, and a slice of the
// maximum's capacity makes the Go runtime count (and, on some OSes, commit)
// the whole maximum, and a refused allocation kills the process.
type heapMemory struct {
	mu    sync.Mutex
	buf   []byte
	max   uint64
	freed bool
}

// Reallocate implements experimental.LinearMemory.
func (m *heapMemory) Reallocate(size uint64) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.freed || size > m.max {
		return nil
	}
	n := int(size)
	if n > len(m.buf) {
		m.buf = append(m.buf, make([]byte, n-len(m.buf))...)
	}
	return m.buf[:n:n]
}

// Free implements experimental.LinearMemory.
func (m *heapMemory) Free() {
	m.mu.Lock()
	m.buf, m.freed = nil, true
	m.mu.Unlock()
}

// HeapOnly makes every allocation take the heap fallback until restore is
// called: for tests and benchmarks of the fallback.
func HeapOnly() (restore func()) {
	r := reserve
	reserve = func(uint64) *mappedMemory { return nil }
	return func() { reserve = r }
}
