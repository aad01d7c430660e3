package runtime

import (
	"context"
	"os"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
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
	p := load(t, rt, spin, NewProviderConfig().WithTimeout(time.Hour))

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := p.Read(ctx, "evil:exprec")
		done <- err
	}()
	require.Eventually(t, func() bool { return rt.slotsInUse() == 1 }, 10*time.Second, time.Millisecond)
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
