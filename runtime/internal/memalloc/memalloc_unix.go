//go:build linux || darwin

package memalloc

import (
	"sync"
	"sync/atomic"
	"syscall"
)

// liveReservations counts the reservations not yet unmapped, for tests.
var liveReservations atomic.Int64

// Live is how many reservations are mapped now.
func Live() int64 { return liveReservations.Load() }

// mappedMemory is linear memory in a private anonymous mapping of its
// maximum size, reserved PROT_NONE with MAP_NORESERVE: it costs address
// space only. Growing makes the next pages readable and writable with
// mprotect; the kernel backs a page with zeros when the guest first touches
// it. The backing array never moves, nothing is copied, and Free unmaps it,
// so the memory goes back to the OS when the instance closes, not when the
// garbage collector runs. Pages the guest never touched are never resident.
type mappedMemory struct {
	mu        sync.Mutex
	buf       []byte // the whole reservation; nil once freed
	committed int    // bytes from the start that are readable and writable
}

// reserveMemory reserves max bytes, or returns nil when the OS refuses (an
// address-space rlimit, a 32-bit host) or max is zero, and the caller falls
// back to the Go heap.
func reserveMemory(max uint64) *mappedMemory {
	if max == 0 {
		return nil
	}
	buf, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil
	}
	liveReservations.Add(1)
	return &mappedMemory{buf: buf}
}

// Reallocate implements experimental.LinearMemory. It returns nil, which
// memory.grow reports to the guest as -1, when size is over the reservation
// or the OS refuses to commit (strict overcommit accounting).
func (m *mappedMemory) Reallocate(size uint64) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.buf == nil || size > uint64(len(m.buf)) {
		return nil
	}
	n := int(size)
	if n > m.committed {
		if err := syscall.Mprotect(m.buf[m.committed:n], syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
			return nil
		}
		m.committed = n
	}
	return m.buf[:n:n]
}

// Free implements experimental.LinearMemory. It may be called more than
// once (by wazero when the module closes, then by the instance).
func (m *mappedMemory) Free() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.buf == nil {
		return
	}
	if err := syscall.Munmap(m.buf); err == nil {
		liveReservations.Add(-1)
	}
	m.buf, m.committed = nil, 0
}
