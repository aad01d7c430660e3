package heapsize

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAlloc(t *testing.T) {
	for n, want := range map[uintptr]int64{0: 0, 1: 8, 8: 8, 9: 16, 33: 48, 257: 288, 769: 896, 1025: 1152, 32768: 32768, 32769: 40960, 1 << 20: 1 << 20} {
		require.Equal(t, want, Alloc(n), "n=%d", n)
	}
	require.Equal(t, int64(48), String("0123456789012345678901234567890123456789"))
}

// TestAlloc_matchesTheAllocator: what the allocator reports for many
// allocations of each size is within a page of what Alloc says they take.
func TestAlloc_matchesTheAllocator(t *testing.T) {
	const count = 512
	for _, n := range []int{24, 40, 100, 300, 700, 1500, 5000, 20000, 40000} {
		keep := make([][]byte, count)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range keep {
			keep[i] = make([]byte, n)
		}
		runtime.ReadMemStats(&after)
		got := int64(after.TotalAlloc - before.TotalAlloc)
		want := count * Alloc(uintptr(n))
		require.InDelta(t, want, got, float64(8192+count*8), "n=%d: the allocator took %d for %d objects, Alloc says %d", n, got, count, want)
		runtime.KeepAlive(keep)
	}
}
