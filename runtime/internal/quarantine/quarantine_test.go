package quarantine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBreaker(t *testing.T) {
	now := time.Unix(1000, 0)
	b := New(3, time.Second, 4*time.Second)
	for i := 0; i < 2; i++ {
		ok, _ := b.Allow(now)
		require.True(t, ok)
		require.False(t, b.Record(true, now))
	}
	ok, _ := b.Allow(now)
	require.True(t, ok)
	require.True(t, b.Record(true, now), "third consecutive fault quarantines")
	ok, until := b.Allow(now.Add(500 * time.Millisecond))
	require.False(t, ok)
	require.Equal(t, now.Add(time.Second), until)

	// After the backoff one trial runs; others wait for it.
	later := now.Add(1100 * time.Millisecond)
	ok, _ = b.Allow(later)
	require.True(t, ok, "trial call")
	ok, _ = b.Allow(later)
	require.False(t, ok, "only one trial at a time")
	require.True(t, b.Record(true, later), "failed trial re-quarantines at once")
	_, until, n := b.State(later)
	require.Equal(t, later.Add(2*time.Second), until, "backoff doubles")
	require.Equal(t, 2, n)

	// Backoff is capped, and a success closes the breaker.
	t2 := later.Add(3 * time.Second)
	ok, _ = b.Allow(t2)
	require.True(t, ok)
	b.Record(true, t2)
	_, until, _ = b.State(t2)
	require.Equal(t, t2.Add(4*time.Second), until)
	t3 := t2.Add(5 * time.Second)
	ok, _ = b.Allow(t3)
	require.True(t, ok)
	b.Record(false, t3)
	q, _, _ := b.State(t3)
	require.False(t, q)
	ok, _ = b.Allow(t3)
	require.True(t, ok)
}

func TestBreaker_SuccessResetsCount(t *testing.T) {
	now := time.Unix(0, 0)
	b := New(2, time.Second, time.Second)
	b.Record(true, now)
	b.Record(false, now)
	require.False(t, b.Record(true, now), "count restarts after a success")
}

func TestBreaker_AbandonedTrial(t *testing.T) {
	now := time.Unix(0, 0)
	b := New(1, time.Second, time.Second)
	b.Record(true, now)
	ok, _ := b.Allow(now.Add(2 * time.Second))
	require.True(t, ok)
	b.Abandon()
	ok, _ = b.Allow(now.Add(2 * time.Second))
	require.True(t, ok, "an abandoned trial must not block later calls")
}
