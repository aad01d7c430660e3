package runtime

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tetratelabs/wazero/sys"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// classify turns an error from a guest call into one abi fault kind with a
// short, host-written description. Guest-controlled text (trap messages,
// stack frames named by the guest) is not included.
//
// Timeouts and cancellations are known from the host's own fault
// (preemptCheck and host imports panic with one), never from the guest's
// exit code.
//
// A trap counts as running out of memory when the guest grew its memory
// during the call to within a quarter of the limit (Go and AssemblyScript
// trap with unreachable when memory.grow fails; C's malloc returns NULL).
func classify(err error, in *instance, memBefore uint32, memLimit uint64) error {
	var exit *sys.ExitError
	var fault *hostFault
	switch {
	case errors.As(err, &fault):
		if fault.Cause != nil {
			return fmt.Errorf("%w: %s: %w", fault.Kind, fault.Msg, fault.Cause)
		}
		return fmt.Errorf("%w: %s", fault.Kind, fault.Msg)
	case errors.As(err, &exit):
		// Only the guest's proc_exit ends a call with an exit code: the
		// host stops guests with a trap of its own (preemptCheck), never by
		// closing the module, so no code means a timeout whatever its value.
		return fmt.Errorf("%w: guest called proc_exit(%d)", abi.ErrTrap, exit.ExitCode())
	}
	msg := err.Error()
	trap := "unknown"
	for _, t := range []string{"unreachable", "integer divide by zero", "integer overflow", "out of bounds memory access",
		"invalid table access", "indirect call type mismatch", "invalid conversion to integer", "stack overflow"} {
		if strings.Contains(msg, t) {
			trap = t
			break
		}
	}
	if trap == "stack overflow" {
		return fmt.Errorf("%w: stack overflow (unbounded recursion?)", abi.ErrTrap)
	}
	if in != nil && memLimit > 0 {
		mem := uint64(in.memoryBytes())
		if mem > uint64(memBefore) && memLimit-min(mem, memLimit) < memLimit/4 {
			return fmt.Errorf("%w: trapped (%s) after growing memory to %d of %d KiB", abi.ErrMemory, trap, mem>>10, memLimit>>10)
		}
	}
	return fmt.Errorf("%w: %s", abi.ErrTrap, trap)
}

// isFault reports whether err means the instance can no longer be trusted.
func isFault(err error) bool {
	for _, k := range []error{abi.ErrTimeout, abi.ErrMemory, abi.ErrTrap, abi.ErrViolation, abi.ErrOutputTooLarge} {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}
