package runtime_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// TestClose_WaitsForCallsInFlight: Close lets a running call end (here by
// its deadline) before closing the instances under it, and later calls get
// abi.ErrClosed. Run under -race this also proves no guest state is torn
// down while the guest runs.
func TestClose_WaitsForCallsInFlight(t *testing.T) {
	rt := newHostileRuntime(t, &logSink{})
	p, err := rt.Load(t.Context(), "loop", fixture(t, "loop.wasm"), testkit.Limits(runtime.NewProviderConfig()).WithTimeout(300*time.Millisecond))
	require.NoError(t, err)
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		close(started)
		_, err := p.Read(t.Context(), "evil:loop")
		done <- err
	}()
	<-started
	testkit.Eventually(t, func() bool { return rt.SlotsInUse() == 1 }, "the call never reached its guest")
	require.NoError(t, p.Close(t.Context()))
	// Had Close torn the instance down under the call, the call would end
	// with a closed-module error instead of its own deadline.
	select {
	case err := <-done:
		require.ErrorIs(t, err, abi.ErrTimeout, "the call ran to its own deadline")
	case <-time.After(testkit.Wait):
		t.Fatal("the call never returned")
	}
	_, err = p.Read(t.Context(), "evil:good")
	require.ErrorIs(t, err, abi.ErrClosed)
}
