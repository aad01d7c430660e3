package memalloc

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHeapMemory: the fallback keeps the bytes it had and hands out zeros;
// it refuses past the maximum and after Free.
func TestHeapMemory(t *testing.T) {
	m := &heapMemory{max: 8 * pageSize}
	b := m.Reallocate(pageSize)
	require.Len(t, b, pageSize)
	b[0] = 7
	for i := 2; i <= 8; i++ {
		b = m.Reallocate(uint64(i) * pageSize)
		require.Len(t, b, i*pageSize)
		require.Equal(t, i*pageSize, cap(b), "no capacity past the length")
		require.Equal(t, byte(7), b[0])
		require.Zero(t, b[len(b)-1])
	}
	require.Nil(t, m.Reallocate(8*pageSize+1))
	m.Free()
	m.Free()
	require.Nil(t, m.Reallocate(pageSize))
}

// pageSize is WebAssembly's page.
const pageSize = 65536
