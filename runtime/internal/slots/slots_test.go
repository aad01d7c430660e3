package slots

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

func TestSlots_KeepOneForAnIdleProvider(t *testing.T) {
	s := New(4)
	ctx := context.Background()
	var a, b, c Share
	for range 3 {
		require.NoError(t, s.Acquire(ctx, &a))
	}
	// A's fourth call would take the last slot: it waits.
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, s.Acquire(short, &a), context.DeadlineExceeded)
	// B holds none: it gets the slot kept free.
	require.NoError(t, s.Acquire(ctx, &b))
	require.Equal(t, 3, a.held)
	require.Equal(t, 1, b.held)
	// Now C (none held) waits, and goes before A and B when a slot frees.
	granted := make(chan *Share, 3)
	for _, sh := range []*Share{&a, &b, &c} {
		go func() {
			if s.Acquire(ctx, sh) == nil {
				granted <- sh
			}
		}()
	}
	require.Eventually(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.waiters) == 3 }, testkit.Wait, time.Millisecond)
	waiting := func() int { s.mu.Lock(); defer s.mu.Unlock(); return len(s.waiters) }
	s.Release(&a) // a holds 2, b 1, c 0; one slot free
	require.Equal(t, &c, <-granted, "the provider holding no slot goes first")
	s.Release(&a) // a holds 1, b 1: one free slot is kept for a newcomer
	require.Equal(t, 2, waiting(), "a second slot needs two free")
	s.Release(&a) // a holds 0: it goes before b, which holds 1
	require.Equal(t, &a, <-granted, "then the one holding fewest")
	require.Equal(t, 1, waiting())
	s.Release(&c)
	require.Equal(t, &b, <-granted)
}

func TestSlots_CancelReturnsAGrant(t *testing.T) {
	s := New(2)
	var a, b Share
	require.NoError(t, s.Acquire(context.Background(), &a))
	require.NoError(t, s.Acquire(context.Background(), &b))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Acquire(ctx, &a) }()
	require.Eventually(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.waiters) == 1 }, testkit.Wait, time.Millisecond)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	s.mu.Lock()
	require.Empty(t, s.waiters)
	s.mu.Unlock()
	s.Release(&a)
	s.Release(&b)
	require.Equal(t, 2, s.free)
	require.Zero(t, a.held+b.held)
}

// TestSlots_Hammer: many providers taking and giving back slots, with
// cancellations; the count never goes over the bound and ends where it began,
// and no waiter is ever left that could take a free slot (which acquire's
// fast path relies on: a call that can take a slot goes before nobody).
func TestSlots_Hammer(t *testing.T) {
	const total = 4
	s := New(total)
	shares := make([]Share, 6)
	var wg sync.WaitGroup
	var mu sync.Mutex
	held := 0
	for g := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for range 300 {
				sh := &shares[rng.IntN(len(shares))]
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rng.IntN(200))*time.Microsecond)
				requireNoWaiterCouldTake(t, s)
				if s.Acquire(ctx, sh) == nil {
					mu.Lock()
					held++
					require.LessOrEqual(t, held, total)
					mu.Unlock()
					time.Sleep(time.Duration(rng.IntN(50)) * time.Microsecond)
					mu.Lock()
					held--
					mu.Unlock()
					s.Release(sh)
				}
				cancel()
			}
		}()
	}
	wg.Wait()
	require.Equal(t, total, s.free)
	require.Empty(t, s.waiters)
	for i := range shares {
		require.Zero(t, shares[i].held)
	}
}

func requireNoWaiterCouldTake(t *testing.T, s *Slots) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.waiters {
		require.False(t, s.canTake(w.sh), "a waiter could take a free slot: %d free, it holds %d", s.free, w.sh.held)
	}
}
