package runtime

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// TestFairness: one provider saturated with calls that run to their deadline
// cannot take the global slots another provider needs. Before the fair slots (runtime/internal/slots), the
// four spinning calls held all four slots and every read of the other
// provider failed waiting for one.
func TestFairness(t *testing.T) {
	spin, err := os.ReadFile("../testdata/hostile/spin.wasm")
	require.NoError(t, err)
	good, err := os.ReadFile("../testdata/hostile/good.wasm")
	require.NoError(t, err)
	rt := newTestRuntime(t, NewConfig().WithMaxConcurrency(4))
	busy := load(t, rt, spin, testkit.Limits(NewProviderConfig()).WithTimeout(time.Hour).WithPoolSize(8))
	quiet := load(t, rt, good, testkit.Limits(NewProviderConfig()))

	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := busy.Read(ctx, "evil:brtable")
			errs <- err
		}()
	}
	require.Eventually(t, func() bool { return rt.slotsInUse()+rt.slotWaiters() == 8 }, testkit.Wait, time.Millisecond,
		"every busy call has a slot or waits for one")
	require.Equal(t, 3, rt.slotsInUse(), "the busy provider takes every slot but one")

	for i := range 20 {
		rctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		r, err := quiet.Read(rctx, "evil:good")
		cancel()
		require.NoError(t, err, "read %d of the quiet provider while the other spins", i)
		require.Equal(t, "ok", *r.Contents[0].Text)
	}
	require.Equal(t, 3, rt.slotsInUse(), "the busy provider still spins")

	stop()
	wg.Wait()
	close(errs)
	for err := range errs {
		require.True(t, errors.Is(err, abi.ErrTimeout), "a canceled spin is a timeout (canceled): %v", err)
	}
	require.Zero(t, rt.slotsInUse())
}
