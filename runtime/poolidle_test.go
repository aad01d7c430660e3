package runtime

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/memalloc"
)

func noAdmit(context.Context) error { return nil }

// TestPool_ReusesBeforeGrowing: a caller that finds the only instance busy
// waits for it to come back rather than make a second, while making one
// would take longer (here: forever); once the wait is over it makes one.
// A real C guest, no clock: the patience is set, not timed.
func TestPool_ReusesBeforeGrowing(t *testing.T) {
	rt := newTestRuntime(t, NewConfig())
	p := load(t, rt, readFile(t, benchGuests[0].wasm(t)), testkit.Limits(NewProviderConfig()).WithPoolSize(4).WithIdleTimeout(0))
	ctx := context.Background()
	p.pool.mu.Lock()
	p.pool.made = time.Hour // making one would take longer than any call
	p.pool.mu.Unlock()
	a, err := p.pool.acquire(ctx, noAdmit)
	require.NoError(t, err)
	got := make(chan *instance)
	go func() {
		in, err := p.pool.acquire(ctx, noAdmit)
		if err != nil {
			t.Error(err)
		}
		got <- in
	}()
	testkit.Eventually(t, func() bool { return len(p.pool.slots) == 2 }, "the second caller should hold a slot and wait")
	p.pool.release(ctx, a, true)
	b := <-got
	require.Same(t, a, b, "the instance that came back is reused")
	require.Equal(t, 1, p.pool.liveCount(), "no second instance was made")

	p.pool.mu.Lock()
	p.pool.made = time.Nanosecond // making one is quicker than waiting
	p.pool.mu.Unlock()
	c, err := p.pool.acquire(ctx, noAdmit)
	require.NoError(t, err)
	require.NotSame(t, b, c)
	require.Equal(t, 2, p.pool.liveCount(), "with every instance busy past the patience, the pool grows")
	p.pool.release(ctx, b, true)
	p.pool.release(ctx, c, true)
	_, err = p.Read(ctx, "bench:///1k")
	require.NoError(t, err)
}

// TestPool_IdleShrink: after a burst that needed four instances of a real
// Go guest, the idle pass closes the three idle since before the cutoff,
// oldest first, keeps the most recently used one, and unmaps their linear
// memory; the provider still serves. The idle clock is the test's.
func TestPool_IdleShrink(t *testing.T) {
	rt := newTestRuntime(t, NewConfig())
	p := load(t, rt, readFile(t, benchGuests[1].wasm(t)), testkit.Limits(NewProviderConfig()).WithPoolSize(4).WithIdleTimeout(0))
	ctx := context.Background()
	var mu sync.Mutex
	clock := time.Unix(1000, 0)
	p.pool.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	tick := func(d time.Duration) time.Time { mu.Lock(); defer mu.Unlock(); clock = clock.Add(d); return clock }
	p.pool.mu.Lock()
	p.pool.made = time.Nanosecond // grow at once: the burst is real concurrency
	p.pool.mu.Unlock()
	held := make([]*instance, 4)
	for i := range held {
		in, err := p.pool.acquire(ctx, noAdmit)
		require.NoError(t, err)
		_, err = in.call(ctx, "describe", p.newState(nil))
		require.NoError(t, err)
		held[i] = in
	}
	require.Equal(t, 4, p.pool.liveCount())
	before := memalloc.Live()
	for _, in := range held {
		tick(time.Second)
		p.pool.release(ctx, in, true)
	}
	require.Zero(t, p.pool.shrink(ctx, clock.Add(-4*time.Second), 1), "none was idle since before the cutoff")
	cutoff := tick(time.Second).Add(-time.Second) // all four released at or before it
	require.Equal(t, 3, p.pool.shrink(ctx, cutoff.Add(time.Nanosecond), 1))
	require.Equal(t, 1, p.pool.liveCount())
	require.Equal(t, before-3, memalloc.Live(), "the closed instances' linear memory is unmapped")
	require.Len(t, p.pool.idle, 1)
	require.Same(t, held[3], p.pool.idle[0].in, "the most recently used instance is kept")
	require.Zero(t, p.pool.shrink(ctx, tick(time.Hour), 1), "one instance stays warm")
	_, err := p.Read(ctx, "bench:///1k")
	require.NoError(t, err)
	require.Equal(t, 1, p.pool.liveCount(), "a call with no other in flight reuses the warm instance")
}

// TestPool_LightLoadUsesOneInstance: sequential calls always get the
// instance released last, so the others age out.
func TestPool_LightLoadUsesOneInstance(t *testing.T) {
	rt := newTestRuntime(t, NewConfig())
	p := load(t, rt, minimalWasm(t), testkit.Limits(NewProviderConfig()).WithPoolSize(4).WithIdleTimeout(0))
	ctx := context.Background()
	p.pool.mu.Lock()
	p.pool.made = time.Nanosecond
	p.pool.mu.Unlock()
	a, err := p.pool.acquire(ctx, noAdmit)
	require.NoError(t, err)
	b, err := p.pool.acquire(ctx, noAdmit)
	require.NoError(t, err)
	p.pool.release(ctx, a, true)
	p.pool.release(ctx, b, true)
	for range 5 {
		in, err := p.pool.acquire(ctx, noAdmit)
		require.NoError(t, err)
		require.Same(t, b, in)
		p.pool.release(ctx, in, true)
	}
}

// TestProvider_IdlePass: the provider's own idle pass, on its ticker,
// closes idle instances down to one and returns memory to the OS; a pass
// that finds the provider fallen idle after calls returns memory once.
func TestProvider_IdlePass(t *testing.T) {
	var freed sync.Mutex
	n := 0
	old := freeOSMemory
	freeOSMemory = func() { freed.Lock(); n++; freed.Unlock() }
	t.Cleanup(func() { freeOSMemory = old })
	count := func() int { freed.Lock(); defer freed.Unlock(); return n }

	rt := newTestRuntime(t, NewConfig())
	p := load(t, rt, minimalWasm(t), testkit.Limits(NewProviderConfig()).WithPoolSize(4).WithIdleTimeout(time.Millisecond))
	ctx := context.Background()
	p.pool.mu.Lock()
	p.pool.made = time.Nanosecond
	p.pool.mu.Unlock()
	var held []*instance
	for range 3 {
		in, err := p.pool.acquire(ctx, noAdmit)
		require.NoError(t, err)
		held = append(held, in)
	}
	for _, in := range held {
		p.pool.release(ctx, in, true)
	}
	testkit.Eventually(t, func() bool { return p.pool.liveCount() == 1 }, "the ticker's pass should close idle instances down to one")
	testkit.Eventually(t, func() bool { return count() >= 1 }, "closing instances returns memory")
	require.NoError(t, p.Close(ctx))
	require.NotNil(t, p.reaper)
	<-p.reaper.done // Close stopped it

	// The pass itself, driven directly.
	m := count()
	require.False(t, p.idlePass(time.Now(), false, true))
	require.Equal(t, m+1, count(), "fallen idle after a burst: memory returned")
	require.False(t, p.idlePass(time.Now(), false, false))
	require.Equal(t, m+1, count(), "still idle: nothing more to return")
	require.True(t, p.idlePass(time.Now(), true, false))
	require.Equal(t, m+1, count(), "busy: nothing returned")
}
