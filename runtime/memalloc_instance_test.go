//go:build linux || darwin

package runtime

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/memalloc"
)

// TestInstanceMemoryUnmapped: an instance's reservation is unmapped when it
// is discarded after a fault and when the provider closes; and when the
// start section traps after filling memory, the reservation of the
// instantiation that failed is unmapped too (wazero drops it without Free).
func TestInstanceMemoryUnmapped(t *testing.T) {
	ctx := context.Background()
	before := memalloc.Live()
	rt := newTestRuntime(t, NewConfig())
	cfg := testkit.Limits(NewProviderConfig()).WithMemoryLimit(4 << 20).WithPoolSize(2)
	p, err := rt.Load(ctx, "grow", readFile(t, filepath.Join("..", "testdata", "hostile", "grow.wasm")), cfg)
	require.NoError(t, err)
	require.Equal(t, before+1, memalloc.Live(), "the pooled load instance")
	_, err = p.Read(ctx, "evil:growtrap")
	require.ErrorIs(t, err, abi.ErrMemory)
	require.Equal(t, before, memalloc.Live(), "the faulted instance was unmapped")
	_, err = p.Read(ctx, "evil:growfill")
	require.NoError(t, err)
	require.Equal(t, before+1, memalloc.Live())
	require.NoError(t, p.Close(ctx))
	require.Equal(t, before, memalloc.Live(), "closing the provider unmapped its instances")

	wasm, err := os.ReadFile(filepath.Join("..", "testdata", "hostile", "grow_start.wasm"))
	require.NoError(t, err)
	for range 3 {
		_, err = rt.Load(ctx, "grow_start", wasm, cfg)
		require.ErrorIs(t, err, ErrInit)
		require.ErrorIs(t, err, abi.ErrTrap)
	}
	require.Equal(t, before, memalloc.Live(), "a failed instantiation left its memory mapped")
}

// TestHeapMemoryFallback: when no reservation can be made, guests run on
// the heap fallback, up to the cap and no further.
func TestHeapMemoryFallback(t *testing.T) {
	defer memalloc.HeapOnly()()
	before := memalloc.Live()
	rt := newTestRuntime(t, NewConfig())
	p := load(t, rt, readFile(t, filepath.Join("..", "testdata", "hostile", "grow.wasm")), testkit.Limits(NewProviderConfig()).WithMemoryLimit(4<<20).WithRecycleAfter(1))
	for range 3 {
		res, err := p.Read(context.Background(), "evil:growfill")
		require.NoError(t, err)
		require.Equal(t, "64", *res.Contents[0].Text, "grew to the 4 MiB cap")
	}
	require.Equal(t, before, memalloc.Live(), "nothing was mapped")
}
