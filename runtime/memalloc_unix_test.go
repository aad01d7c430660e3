//go:build linux || darwin

package runtime

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
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

// TestInstanceMemoryUnmapped: an instance's reservation is unmapped when it
// is discarded after a fault and when the provider closes; and when the
// start section traps after filling memory, the reservation of the
// instantiation that failed is unmapped too (wazero drops it without Free).
func TestInstanceMemoryUnmapped(t *testing.T) {
	ctx := context.Background()
	before := liveReservations.Load()
	rt := newTestRuntime(t, NewConfig())
	cfg := testkit.Limits(NewProviderConfig()).WithMemoryLimit(4 << 20).WithPoolSize(2)
	p, err := rt.Load(ctx, "grow", readFile(t, filepath.Join("..", "testdata", "hostile", "grow.wasm")), cfg)
	require.NoError(t, err)
	require.Equal(t, before+1, liveReservations.Load(), "the pooled load instance")
	_, err = p.Read(ctx, "evil:growtrap")
	require.ErrorIs(t, err, abi.ErrMemory)
	require.Equal(t, before, liveReservations.Load(), "the faulted instance was unmapped")
	_, err = p.Read(ctx, "evil:growfill")
	require.NoError(t, err)
	require.Equal(t, before+1, liveReservations.Load())
	require.NoError(t, p.Close(ctx))
	require.Equal(t, before, liveReservations.Load(), "closing the provider unmapped its instances")

	wasm, err := os.ReadFile(filepath.Join("..", "testdata", "hostile", "grow_start.wasm"))
	require.NoError(t, err)
	for range 3 {
		_, err = rt.Load(ctx, "grow_start", wasm, cfg)
		require.ErrorIs(t, err, ErrInit)
		require.ErrorIs(t, err, abi.ErrTrap)
	}
	require.Equal(t, before, liveReservations.Load(), "a failed instantiation left its memory mapped")
}

// TestHeapMemoryFallback: when no reservation can be made, guests run on
// the heap fallback, up to the cap and no further.
func TestHeapMemoryFallback(t *testing.T) {
	defer func(r func(uint64) *mappedMemory) { reserve = r }(reserve)
	reserve = func(uint64) *mappedMemory { return nil }
	before := liveReservations.Load()
	rt := newTestRuntime(t, NewConfig())
	p := load(t, rt, readFile(t, filepath.Join("..", "testdata", "hostile", "grow.wasm")), testkit.Limits(NewProviderConfig()).WithMemoryLimit(4<<20).WithRecycleAfter(1))
	for range 3 {
		res, err := p.Read(context.Background(), "evil:growfill")
		require.NoError(t, err)
		require.Equal(t, "64", *res.Contents[0].Text, "grew to the 4 MiB cap")
	}
	require.Equal(t, before, liveReservations.Load(), "nothing was mapped")
}
