package runtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBreaker(t *testing.T) {
	now := time.Unix(1000, 0)
	b := newBreaker(3, time.Second, 4*time.Second)
	for i := 0; i < 2; i++ {
		ok, _ := b.allow(now)
		require.True(t, ok)
		require.False(t, b.record(true, now))
	}
	ok, _ := b.allow(now)
	require.True(t, ok)
	require.True(t, b.record(true, now), "third consecutive fault quarantines")
	ok, until := b.allow(now.Add(500 * time.Millisecond))
	require.False(t, ok)
	require.Equal(t, now.Add(time.Second), until)

	// After the backoff one trial runs; others wait for it.
	later := now.Add(1100 * time.Millisecond)
	ok, _ = b.allow(later)
	require.True(t, ok, "trial call")
	ok, _ = b.allow(later)
	require.False(t, ok, "only one trial at a time")
	require.True(t, b.record(true, later), "failed trial re-quarantines at once")
	_, until, n := b.state(later)
	require.Equal(t, later.Add(2*time.Second), until, "backoff doubles")
	require.Equal(t, 2, n)

	// Backoff is capped, and a success closes the breaker.
	t2 := later.Add(3 * time.Second)
	ok, _ = b.allow(t2)
	require.True(t, ok)
	b.record(true, t2)
	_, until, _ = b.state(t2)
	require.Equal(t, t2.Add(4*time.Second), until)
	t3 := t2.Add(5 * time.Second)
	ok, _ = b.allow(t3)
	require.True(t, ok)
	b.record(false, t3)
	q, _, _ := b.state(t3)
	require.False(t, q)
	ok, _ = b.allow(t3)
	require.True(t, ok)
}

func TestBreaker_SuccessResetsCount(t *testing.T) {
	now := time.Unix(0, 0)
	b := newBreaker(2, time.Second, time.Second)
	b.record(true, now)
	b.record(false, now)
	require.False(t, b.record(true, now), "count restarts after a success")
}

func TestBreaker_AbandonedTrial(t *testing.T) {
	now := time.Unix(0, 0)
	b := newBreaker(1, time.Second, time.Second)
	b.record(true, now)
	ok, _ := b.allow(now.Add(2 * time.Second))
	require.True(t, ok)
	b.abandon()
	ok, _ = b.allow(now.Add(2 * time.Second))
	require.True(t, ok, "an abandoned trial must not block later calls")
}
