package runtime

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
// the Go heap and doubles, which leaves at most its final size in copies.

// reserve is reserveMemory; tests replace it to exercise the heap fallback.
var reserve = reserveMemory

// memoryAllocator hands out the linear memories of one instantiation and
// remembers them, so that the instance frees them when it closes and the
// instantiation frees them when it fails: wazero drops a module whose data
// segments or start function fail without freeing its memory.
type memoryAllocator struct {
	limit uint64 // the provider's memory limit: no reservation is larger
	mems  []experimental.LinearMemory
}

// withMemoryAllocator returns ctx carrying a fresh allocator for one
// InstantiateModule call, with every memory capped at limit bytes.
func withMemoryAllocator(ctx context.Context, limit uint64) (context.Context, *memoryAllocator) {
	a := &memoryAllocator{limit: limit}
	return experimental.WithMemoryAllocator(ctx, a), a
}

// Allocate implements experimental.MemoryAllocator. max is the module's
// maximum, which wazero has already clamped to the runtime's limit.
func (a *memoryAllocator) Allocate(capacity, max uint64) experimental.LinearMemory {
	max = min(max, a.limit)
	if max > math.MaxInt {
		max = math.MaxInt // a 32-bit host: the reservation fails and the heap is used
	}
	var m experimental.LinearMemory
	if r := reserve(max); r != nil {
		m = r
	} else {
		m = &heapMemory{max: max, initial: min(capacity, max)}
	}
	a.mems = append(a.mems, m)
	return m
}

// free frees every memory handed out. Free is idempotent, so this is safe
// after wazero freed them itself.
func (a *memoryAllocator) free() {
	for _, m := range a.mems {
		m.Free()
	}
}

// heapMemory is linear memory on the Go heap, for hosts where none can be
// reserved. Growth doubles the capacity (up to max), so the old copies left
// to the garbage collector add up to less than the final size, where
// append's 1.25 factor leaves about four times it.
type heapMemory struct {
	mu      sync.Mutex
	buf     []byte
	max     uint64
	initial uint64
	freed   bool
}

// Reallocate implements experimental.LinearMemory.
func (m *heapMemory) Reallocate(size uint64) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.freed || size > m.max {
		return nil
	}
	n := int(size)
	if n > cap(m.buf) {
		c := max(n, 2*cap(m.buf), int(m.initial))
		c = min(c, int(m.max))
		b := make([]byte, n, c)
		copy(b, m.buf)
		m.buf = b
	}
	m.buf = m.buf[:n]
	return m.buf[:n:n]
}

// Free implements experimental.LinearMemory.
func (m *heapMemory) Free() {
	m.mu.Lock()
	m.buf, m.freed = nil, true
	m.mu.Unlock()
}
