package runtime

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// TestPool_Hammer drives many goroutines through a small pool: every call
// must succeed, and the pool must never hold more instances than its size.
func TestPool_Hammer(t *testing.T) {
	const size, workers = 3, 16
	calls := 200
	if testing.Short() {
		calls = 40
	}
	rt := newTestRuntime(t, NewConfig().WithMaxConcurrency(8))
	p := load(t, rt, minimalWasm(t), testkit.Limits(NewProviderConfig()).WithPoolSize(size).WithRecycleAfter(7))
	var failures, maxLive atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for range calls {
				if _, err := p.Read(context.Background(), "min:a"); err != nil {
					failures.Add(1)
				}
				if l := int64(p.pool.liveCount()); l > maxLive.Load() {
					maxLive.Store(l)
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	require.Zero(t, failures.Load())
	require.LessOrEqual(t, maxLive.Load(), int64(size))
	st := p.Stats()
	require.Equal(t, uint64(workers*calls+1), st.Calls, "every read plus describe reached a guest")
	require.Greater(t, st.Instantiated, uint64(workers*calls/7/2), "recycling replaced instances")
	require.Zero(t, st.Faults)
}

func TestPool_WaitHonoursDeadline(t *testing.T) {
	rt := newTestRuntime(t, NewConfig())
	p := load(t, rt, minimalWasm(t), testkit.Limits(NewProviderConfig()).WithPoolSize(1))
	in, err := p.pool.acquire(context.Background(), func(context.Context) error { return nil })
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = p.Read(ctx, "min:a")
	require.Error(t, err)
	p.pool.release(context.Background(), in, true)
	_, err = p.Read(context.Background(), "min:a")
	require.NoError(t, err, "a caller that gave up must not poison the pool or the breaker")
}

func TestProvider_ClosedAndUnsupported(t *testing.T) {
	rt := newTestRuntime(t, NewConfig())
	p := load(t, rt, minimalWasm(t), testkit.Limits(NewProviderConfig()))
	_, err := p.List(context.Background(), "")
	require.ErrorContains(t, err, "does not implement list")
	_, err = p.Read(context.Background(), "other:a")
	require.ErrorContains(t, err, "outside provider")
	require.NoError(t, p.Close(context.Background()))
	_, err = p.Read(context.Background(), "min:a")
	require.ErrorContains(t, err, "provider closed")
	require.Zero(t, p.pool.liveCount())
}

func TestSanitize(t *testing.T) {
	require.Equal(t, "a b\ufffd\ufffdc", Sanitize("a\nb\x1b\xffc", 100))
	require.Equal(t, "ab…", Sanitize("abcdef", 5), "at most 5 bytes, the ellipsis included")
}
