//go:build !linux && !darwin

package memalloc

// mappedMemory is not available here: linear memory lives on the Go heap
// (heapMemory), where growth is amortized but freed memory waits for the
// garbage collector.
type mappedMemory = heapMemory

// reserveMemory never reserves on this OS.
func reserveMemory(uint64) *mappedMemory { return nil }
