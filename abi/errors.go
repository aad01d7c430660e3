package abi

import "errors"

// Error kinds of a provider call. The runtime wraps one of these in every
// error it returns from a call, and the MCP layer maps them to JSON-RPC codes
// with errors.Is, so neither needs to import the other.
//
// Domain errors come from a healthy provider that returned StatusError:
//   - ErrNotFound, ErrInvalidParams, ErrProviderInternal.
//
// Faults come from a provider that misbehaved or could not run; the instance
// that produced one is discarded:
//   - ErrTimeout, ErrMemory, ErrTrap, ErrViolation, ErrOutputTooLarge.
//
// Refusals come from the host before any guest code runs:
//   - ErrUnsupported, ErrQuarantined, ErrBadInput, ErrClosed.
var (
	ErrNotFound         = errors.New("not found")
	ErrInvalidParams    = errors.New("invalid params")
	ErrProviderInternal = errors.New("provider internal error")

	ErrTimeout        = errors.New("provider call timed out")
	ErrMemory         = errors.New("provider ran out of memory")
	ErrTrap           = errors.New("provider trapped")
	ErrViolation      = errors.New("provider violated the ABI")
	ErrOutputTooLarge = errors.New("provider output over the limit")

	ErrUnsupported = errors.New("operation not implemented by provider")
	ErrQuarantined = errors.New("provider quarantined")
	ErrBadInput    = errors.New("input rejected before the call")
	ErrClosed      = errors.New("provider closed")
)

// KindOf returns the error kind of a domain error code (Error.Code):
// ErrNotFound for CodeNotFound, ErrInvalidParams for CodeInvalidParams,
// and ErrProviderInternal for CodeInternal and any other code. The runtime
// maps a guest's Error with it, and so does anything else that serves a
// provider outside the sandbox, so every path answers a code alike.
func KindOf(code string) error {
	switch code {
	case CodeNotFound:
		return ErrNotFound
	case CodeInvalidParams:
		return ErrInvalidParams
	}
	return ErrProviderInternal
}
