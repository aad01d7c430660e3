//go:build linux || darwin

package memalloc

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestMappedMemoryGrowsInPlace: growing commits the next pages of the one
// reservation. The backing array never moves, new pages read as zeros, old
// bytes stay, nothing past the reservation is handed out, and Free may be
// called twice.
func TestMappedMemoryGrowsInPlace(t *testing.T) {
	const pages = 16
	before := liveReservations.Load()
	m := reserveMemory(pages * pageSize)
	require.NotNil(t, m)
	require.Equal(t, before+1, liveReservations.Load())
	b := m.Reallocate(pageSize)
	base := unsafe.SliceData(b)
	b[0] = 1
	for i := 2; i <= pages; i++ {
		b = m.Reallocate(uint64(i) * pageSize)
		require.Len(t, b, i*pageSize)
		require.Equal(t, i*pageSize, cap(b), "no capacity past the committed pages")
		require.Equal(t, base, unsafe.SliceData(b), "the memory moved")
		require.Zero(t, b[(i-1)*pageSize], "a new page is zero")
		b[len(b)-1] = byte(i)
	}
	require.Equal(t, byte(1), b[0])
	require.Equal(t, byte(pages-1), b[(pages-1)*pageSize-1])
	require.Nil(t, m.Reallocate(pages*pageSize+1), "past the reservation")
	m.Free()
	m.Free()
	require.Nil(t, m.Reallocate(pageSize), "after Free")
	require.Equal(t, before, liveReservations.Load())
	require.Nil(t, reserveMemory(0), "an empty memory goes to the heap")
}
