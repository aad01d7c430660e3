package fault

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// stopped returns what StopIfDone(ctx) panicked with, or nil.
func stopped(ctx context.Context) (f *Fault) {
	defer func() {
		if r := recover(); r != nil {
			f = r.(*Fault)
		}
	}()
	StopIfDone(ctx)
	return nil
}

// TestStopIfDone: a live call goes on; a canceled one and one past its
// deadline (by the clock, before the context's timer fired) stop with a
// timeout that unwraps to the cause.
func TestStopIfDone(t *testing.T) {
	require.Nil(t, stopped(context.Background()))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := stopped(ctx)
	require.ErrorIs(t, f, abi.ErrTimeout)
	require.ErrorIs(t, f, context.Canceled)

	// A deadline in the past that the context has not noticed: the
	// deadline is read from the clock.
	past := deadlineOnly{Context: context.Background(), at: time.Now().Add(-time.Second)}
	f = stopped(past)
	require.ErrorIs(t, f, abi.ErrTimeout)
	require.ErrorIs(t, f, context.DeadlineExceeded)
}

type deadlineOnly struct {
	context.Context
	at time.Time
}

func (d deadlineOnly) Deadline() (time.Time, bool) { return d.at, true }

// TestViolation: a violation unwraps to abi.ErrViolation only.
func TestViolation(t *testing.T) {
	f := Violation("bad %d", 7)
	require.Equal(t, "bad 7", f.Error())
	require.ErrorIs(t, f, abi.ErrViolation)
	require.False(t, errors.Is(f, abi.ErrTimeout))
}
