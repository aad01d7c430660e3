package runtime

import (
	"context"
	"fmt"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/rootfs"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/textsafe"
	"log/slog"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// guarded runs one call: quarantine check, deadline, global slot, an
// instance from the pool, the guest call, then strict decoding and
// validation. A fault discards the instance and counts toward quarantine.
//
// files, if not nil, receives the lookups the call made under the granted
// directories (for the read cache).
//
// The functions on the stack while a guest runs (Read, runTracked,
// guarded, exchange, instance.call) keep small frames: the work before
// and after the call is in helpers (admit, acquireInstance, conclude,
// outcome) that have returned by the time wazero is entered. wazero's call
// loop takes 2.2 KiB of Go stack and a host function more below it; with
// the MCP layer's frames above, a read on a request goroutine that starts
// with 8 KiB of stack otherwise outgrows it, and the runtime copies the
// stack, frame by frame, on every read (about 17 µs of a 1 KiB read over
// stdio, measured). docs/performance.md has the measurement.
func (p *Provider) guarded(ctx context.Context, op string, input []byte, out any, validate func() error, files *rootfs.Track) error {
	if err := p.admit(); err != nil {
		return err
	}
	defer p.calls.leave()
	cctx, cancel := context.WithTimeout(ctx, p.cfg.timeout)
	defer cancel()
	in, admitted, err := p.acquireInstance(ctx, cctx, op)
	if admitted {
		defer p.rt.leave(&p.share)
	}
	if err != nil {
		return err
	}
	err = p.exchange(cctx, in, op, input, out)
	return p.conclude(ctx, in, op, err, validate, files)
}

// admit enters the provider's calls unless it is closed or quarantined.
//
//go:noinline
func (p *Provider) admit() error {
	if !p.calls.enter() {
		return fmt.Errorf("%w: provider %q", abi.ErrClosed, p.name)
	}
	if ok, until := p.brk.Allow(time.Now()); !ok {
		p.calls.leave()
		return fmt.Errorf("%w: provider %q after repeated faults, until %s", abi.ErrQuarantined, p.name, until.Format(time.RFC3339))
	}
	return nil
}

// acquireInstance waits for a global slot and an instance under cctx.
// admitted reports whether the slot was taken (the caller leaves it).
//
//go:noinline
func (p *Provider) acquireInstance(ctx, cctx context.Context, op string) (in *instance, admitted bool, err error) {
	waitStart := time.Now()
	in, err = p.pool.acquire(cctx, func(ctx context.Context) error {
		if err := p.rt.enter(ctx, &p.share); err != nil {
			return fmt.Errorf("%w: waiting for a global slot: %w", abi.ErrTimeout, err)
		}
		admitted = true
		return nil
	})
	p.observeWait(waitStart)
	if err != nil {
		// Only a failed instantiation is the provider's fault; waiting is not.
		if admitted && isFault(err) && ctx.Err() == nil {
			p.settle(ctx, op, err, true)
		} else {
			p.brk.Abandon()
		}
		return nil, admitted, err
	}
	if in.track != nil {
		in.track.Reset()
	}
	return in, admitted, nil
}

// conclude validates a call's output, hands over its lookups, returns the
// instance to the pool (or discards it after a fault) and records the
// outcome.
//
//go:noinline
func (p *Provider) conclude(ctx context.Context, in *instance, op string, err error, validate func() error, files *rootfs.Track) error {
	if err == nil && validate != nil {
		if verr := validate(); verr != nil {
			err = fmt.Errorf("%w: %s output: %w", abi.ErrViolation, op, verr)
		}
	}
	if err == nil && files != nil && in.track != nil {
		files.Stamps = append(files.Stamps[:0], in.track.Stamps...)
		files.Overflow = in.track.Overflow
	}
	fault := isFault(err)
	keep := !fault && (p.cfg.recycleAfter == 0 || in.calls < p.cfg.recycleAfter)
	p.pool.release(ctx, in, keep)
	p.settle(ctx, op, err, fault && ctx.Err() == nil)
	return err
}

// settle records the outcome for stats and quarantine and logs faults.
func (p *Provider) settle(ctx context.Context, op string, err error, fault bool) {
	if !fault {
		if ctx.Err() != nil {
			p.brk.Abandon()
			return
		}
		p.brk.Record(false, time.Now())
		if err != nil {
			p.stats.domainErrors.Add(1)
		}
		return
	}
	p.stats.faults.Add(1)
	p.log.Warn("provider fault; instance discarded", "op", op, "err", err)
	if p.brk.Record(true, time.Now()) {
		_, until, _ := p.brk.State(time.Now())
		p.log.Error("provider quarantined after repeated faults", "until", until)
	}
}

// exchange calls op on in and decodes the output into out, or returns the
// guest's domain error or a fault.
func (p *Provider) exchange(ctx context.Context, in *instance, op string, input []byte, out any) error {
	st := p.newState(input)
	p.stats.calls.Add(1)
	memBefore := in.memoryBytes()
	status, err := in.call(ctx, op, st)
	return p.outcome(ctx, in, op, st, status, err, memBefore, out)
}

// outcome is what a finished guest call comes to: its logs flushed, then
// the output decoded into out, the guest's domain error, or a fault.
//
//go:noinline
func (p *Provider) outcome(ctx context.Context, in *instance, op string, st *callState, status uint32, err error, memBefore uint32, out any) error {
	p.flushLogs(ctx, op, st)
	if mem := in.memoryBytes(); mem > p.stats.memHighWater.Load() {
		p.stats.memHighWater.Store(mem)
	}
	switch {
	case err != nil:
		return classify(err, in, memBefore, p.cfg.memoryLimit)
	case st.overLimit:
		return fmt.Errorf("%w: %s output over %d bytes", abi.ErrOutputTooLarge, op, p.cfg.outputLimit)
	case len(st.output) == 0:
		return fmt.Errorf("%w: %s returned status %d with no output", abi.ErrViolation, op, status)
	}
	switch status {
	case abi.StatusOK:
		if err := abi.Decode(st.output, out); err != nil {
			return fmt.Errorf("%w: %s output: %w", abi.ErrViolation, op, err)
		}
		if r, ok := out.(*abi.ReadResult); ok {
			if err := resolveRaw(r, st.raw); err != nil {
				return fmt.Errorf("%w: %s output: %w", abi.ErrViolation, op, err)
			}
		} else if len(st.raw) > 0 {
			return fmt.Errorf("%w: %s called content_write, which only read may", abi.ErrViolation, op)
		}
		return nil
	case abi.StatusError:
		return domainError(op, st.output, p.cfg.redact)
	default:
		return fmt.Errorf("%w: %s returned unknown status %d (want 0 or 1)", abi.ErrViolation, op, status)
	}
}

func domainError(op string, output []byte, redact func(string) string) error {
	var e abi.Error
	if err := abi.Decode(output, &e); err != nil {
		return fmt.Errorf("%w: %s error output: %w", abi.ErrViolation, op, err)
	}
	if err := e.Validate(); err != nil {
		return fmt.Errorf("%w: %s error output: %w", abi.ErrViolation, op, err)
	}
	kind := abi.KindOf(e.Code)
	if e.Message == "" {
		return kind
	}
	return fmt.Errorf("%w: %s", kind, Sanitize(redact(e.Message), 256))
}

func (p *Provider) newState(input []byte) *callState {
	return &callState{input: input, outLimit: p.cfg.outputLimit, config: p.cfg.configValues}
}

var slogLevels = [...]slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError}

// flushLogs writes a call's guest logs and stdio, sanitized, to the logger.
func (p *Provider) flushLogs(ctx context.Context, op string, st *callState) {
	for _, l := range st.logs {
		p.log.Log(ctx, slogLevels[l.level], "guest: "+Sanitize(p.cfg.redact(string(l.msg)), maxLogMessage), "op", op)
	}
	if st.dropped > 0 {
		p.log.Warn("guest log messages dropped", "op", op, "dropped", st.dropped, "limit", maxLogMessages)
	}
	if len(st.stdio) > 0 {
		p.log.Info("guest stdout/stderr: "+Sanitize(p.cfg.redact(string(st.stdio)), maxStdio), "op", op)
	}
}

// Sanitize makes guest-supplied text safe to log or show: invalid UTF-8
// and control characters become U+FFFD (newlines and tabs become spaces),
// and the result is at most n bytes: longer text is cut at a rune boundary
// and ends with "…", the ellipsis counted in the n.
func Sanitize(s string, n int) string { return textsafe.Sanitize(s, n) }
