// Package fault is how the host stops a guest from inside a host function:
// it panics with a *Fault, which wazero wraps with %w, so the call's error
// unwraps to the fault's abi kind. The verdict comes from what the host
// knows (its own context and clock), never from a number the guest chose.
package fault

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// Fault is what a host import panics with; wazero wraps it with %w, so
// the call's error unwraps to Kind (and to Cause, when set).
type Fault struct {
	Kind  error
	Msg   string
	Cause error
}

func (f *Fault) Error() string { return f.Msg }
func (f *Fault) Unwrap() []error {
	if f.Cause != nil {
		return []error{f.Kind, f.Cause}
	}
	return []error{f.Kind}
}

// Violation is the fault of a guest that broke the ABI.
func Violation(format string, args ...any) *Fault {
	return &Fault{Kind: abi.ErrViolation, Msg: fmt.Sprintf(format, args...)}
}

// Stop is the fault that stops a guest whose call is done: abi.ErrTimeout,
// wrapping context.Canceled or context.DeadlineExceeded.
func Stop(cause error) *Fault {
	if errors.Is(cause, context.Canceled) {
		return &Fault{Kind: abi.ErrTimeout, Msg: "call canceled", Cause: context.Canceled}
	}
	return &Fault{Kind: abi.ErrTimeout, Msg: "deadline exceeded", Cause: context.DeadlineExceeded}
}

// StopIfDone stops the guest, with a fault it cannot catch, once ctx is
// done or its deadline has passed. The clock is read too, so a guest is
// stopped on time even when the context's timer has not fired yet.
func StopIfDone(ctx context.Context) {
	if err := ctx.Err(); err != nil {
		panic(Stop(err))
	}
	if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
		panic(Stop(context.DeadlineExceeded))
	}
}
