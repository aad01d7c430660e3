package runtime

import (
	"context"
	"os"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin"
	bt "github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin/wasmbintest"
)

// TestGCWhileGuestSpins: a guest spinning in compiled code (a loop-free
// recursion here) reaches Go code at every check, so the garbage collector's
// stop-the-world, which waits for every goroutine to reach a safe point,
// completes while the guest is still running; and canceling the call stops
// the guest. With an inline flag test and no exit to Go, the first forced
// GC would wait for the guest, which would wait for the GC: a deadlock.
func TestGCWhileGuestSpins(t *testing.T) {
	spin, err := os.ReadFile("../testdata/hostile/spin.wasm")
	require.NoError(t, err)
	rt := newTestRuntime(t, NewConfig())
	p := load(t, rt, spin, testkit.Limits(NewProviderConfig()).WithTimeout(time.Hour))

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := p.Read(ctx, "evil:exprec")
		done <- err
	}()
	require.Eventually(t, func() bool { return rt.slotsInUse() == 1 }, testkit.Wait, time.Millisecond)
	for range 5 {
		goruntime.GC()
	}
	select {
	case err := <-done:
		t.Fatalf("the guest stopped on its own: %v", err)
	default: // five collections completed while the guest spins
	}
	cancel()
	err = <-done
	require.ErrorIs(t, err, abi.ErrTimeout)
	require.ErrorIs(t, err, context.Canceled, "known to be a cancellation from the host's context, not guessed")
}

// TestPreemptImportRefused: a module cannot import the check function the
// instrumentation adds (and so cannot call it, or link one of its own in
// its place): the import is outside the ABI.
func TestPreemptImportRefused(t *testing.T) {
	m := &bt.Module{}
	m.Imports = []bt.Import{{Module: wasmbin.PreemptModule, Name: wasmbin.PreemptFunc, Type: m.Type(nil, []byte{bt.I64})}}
	m.Memory = &bt.Limits{Min: 1}
	m.Func(bt.Func{Type: m.Type([]byte{bt.I32}, []byte{bt.I32}), Export: "mcpw_v1_describe", Body: bt.I32Const(0)})
	rt := newTestRuntime(t, NewConfig())
	_, err := rt.Load(t.Context(), "x", m.Bytes(), testkit.Limits(NewProviderConfig()))
	require.ErrorIs(t, err, ErrForbiddenImport)
	require.Contains(t, err.Error(), wasmbin.PreemptModule)
}

// TestRawBlob: a blob handed over with content_write reaches the caller as
// the base64 of its bytes.
func TestRawBlob(t *testing.T) {
	wasm, err := os.ReadFile("../testdata/hostile/raw_content.wasm")
	require.NoError(t, err)
	p := load(t, newTestRuntime(t, NewConfig()), wasm, testkit.Limits(NewProviderConfig()))
	r, err := p.Read(t.Context(), "evil:rawblob")
	require.NoError(t, err)
	require.Len(t, r.Contents, 1)
	require.Nil(t, r.Contents[0].Text)
	require.Equal(t, "//4=", *r.Contents[0].Blob)
	require.Nil(t, r.Contents[0].RawBlob)
}
