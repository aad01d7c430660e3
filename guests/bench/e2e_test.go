package main_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/bench/benchprov"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// TestBenchWasm loads the real bench.wasm into the real runtime. Calls of
// different sizes on one instance exercise the SDK's reused buffers, and an
// input the host escapes exercises its encoding/json fallback.
func TestBenchWasm(t *testing.T) {
	ctx := t.Context()
	rt, err := runtime.New(ctx, runtime.NewConfig())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	p, err := rt.LoadFile(ctx, testguest.Go(t, "guests/bench"), testkit.Limits(runtime.NewProviderConfig()).WithPoolSize(1))
	require.NoError(t, err)
	require.Equal(t, []string{abi.OpList, abi.OpRead}, p.Describe().Operations)

	for _, tt := range []struct {
		uri     string
		wantLen int
	}{
		{"bench:///1k", 1 << 10},
		{"bench:///1m", 1 << 20},
		{"bench:///1k", 1 << 10},
		{"bench:///item/<x>&\"y\"", 1 << 10}, // arrives escaped: \u003c, \u0026, \"
	} {
		res, err := p.Read(ctx, tt.uri)
		require.NoError(t, err, tt.uri)
		require.Equal(t, tt.uri, res.Contents[0].URI)
		require.Len(t, *res.Contents[0].Text, tt.wantLen)
		require.True(t, strings.HasSuffix(*res.Contents[0].Text, "abcdefghijklmno\n"))
	}
	_, err = p.Read(ctx, "bench:///nope")
	require.ErrorIs(t, err, abi.ErrNotFound)

	for range 2 {
		page, err := p.List(ctx, "")
		require.NoError(t, err)
		require.Len(t, page.Resources, benchprov.Items)
		require.Equal(t, "item 99", page.Resources[99].Name)
	}
	_, err = p.List(ctx, "p2")
	require.ErrorIs(t, err, abi.ErrInvalidParams)
}

// TestBenchWasm_ManyLargeReads: hundreds of 1 MiB reads on one instance
// under the default 64 MiB memory limit never run out of memory. Before the
// SDK yielded to the runtime after each call, the Go collector's background
// workers never ran in the reactor and every ~60th read hit the limit.
func TestBenchWasm_ManyLargeReads(t *testing.T) {
	ctx := t.Context()
	rt, err := runtime.New(ctx, runtime.NewConfig())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	p, err := rt.LoadFile(ctx, testguest.Go(t, "guests/bench"), testkit.Limits(runtime.NewProviderConfig()).WithPoolSize(1))
	require.NoError(t, err)
	for i := range 250 {
		_, err := p.Read(ctx, "bench:///1m")
		require.NoError(t, err, "read %d (memory %d KiB)", i, p.Stats().MemoryHigh>>10)
	}
	st := p.Stats()
	require.Zero(t, st.Faults)
	require.Equal(t, uint64(1), st.Instantiated, "one instance served every read")
}
