package runtime

import (
	"errors"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// Observer is told about every provider call, for metrics (cmd/mcp-wasm
// feeds internal/metrics from it). Its methods are called on the calling
// goroutine, after the guest call, with no lock held; they must return
// quickly and must not call the provider. The provider's gauges (pool,
// memory, quarantine) are not pushed: read them from Provider.Stats.
type Observer interface {
	// ProviderCall reports one finished call of op (abi.OpList, ...): kind
	// is "" on success or ErrorKind(err) on failure, and d is the whole
	// call, including the wait for an instance. Arguments refused by the
	// operation's own checks before a call is attempted (a URI outside the
	// provider's space, an oversized completion request) are not reported.
	ProviderCall(provider, op, kind string, d time.Duration)
	// PoolWait reports how long a call waited for a pool instance and a
	// global slot, including creating an instance when none was idle.
	PoolWait(provider string, d time.Duration)
}

// WithObserver sets the observer told about every provider call of this
// runtime. Defaults to none.
func (c Config) WithObserver(o Observer) Config { c.observer = o; return c }

// PoolSize returns the most instances the provider keeps.
func (c ProviderConfig) PoolSize() int { return c.poolSize }

// errorKinds names each abi error kind for metrics, in the order checked.
var errorKinds = []struct {
	err  error
	name string
}{
	{abi.ErrNotFound, "not_found"},
	{abi.ErrInvalidParams, "invalid_params"},
	{abi.ErrProviderInternal, "provider_internal"},
	{abi.ErrTimeout, "timeout"},
	{abi.ErrMemory, "memory"},
	{abi.ErrTrap, "trap"},
	{abi.ErrViolation, "abi_violation"},
	{abi.ErrOutputTooLarge, "output_too_large"},
	{abi.ErrUnsupported, "unsupported"},
	{abi.ErrQuarantined, "quarantined"},
	{abi.ErrBadInput, "bad_input"},
	{abi.ErrClosed, "closed"},
}

// ErrorKind names the abi kind err wraps ("timeout", "trap", "not_found",
// ...): "" for nil, "other" for an error wrapping no abi kind.
func ErrorKind(err error) string {
	if err == nil {
		return ""
	}
	for _, k := range errorKinds {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return "other"
}

// observe reports a call that began at start and ended with err to the
// runtime's observer, if any.
func (p *Provider) observe(op string, start time.Time, err error) {
	if o := p.rt.cfg.observer; o != nil {
		o.ProviderCall(p.name, op, ErrorKind(err), time.Since(start))
	}
}

// observeWait reports the wait for an instance that began at start.
func (p *Provider) observeWait(start time.Time) {
	if o := p.rt.cfg.observer; o != nil {
		o.PoolWait(p.name, time.Since(start))
	}
}
