package checkkit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// battery is one run: the subject, what the checks have learned so far
// (each check builds on those before it), and every call made.
type battery struct {
	ctx   context.Context
	s     Subject
	opts  Options
	desc  abi.Describe
	space abi.URISpace
	rep   *Report

	calls   int
	slowest time.Duration
	memHigh uint64
	memCall string // the call after which memory first reached memHigh

	firstList      *outcome[abi.ListResult]
	firstTemplates *outcome[abi.TemplatesResult]
	listed         []abi.Resource
	templates      []abi.ResourceTemplate
	reads          []readDone // successful reads, for contents and fresh
	seen           map[string]bool
	log            []record // every call, for the fresh replay
}

// outcome is what one call returned.
type outcome[T any] struct {
	res *T
	err error
}

// readDone is a read that succeeded, and what promised it: a listed
// resource or a template.
type readDone struct {
	uri      string
	res      *abi.ReadResult
	resource *abi.Resource
	template *abi.ResourceTemplate
}

// record is one call, to replay on a fresh instance.
type record struct {
	op, what string
	replay   func(ctx context.Context, p Provider) (any, error)
	res      any
	err      error
}

func newBattery(ctx context.Context, s Subject, opts Options) *battery {
	return &battery{ctx: ctx, s: s, opts: opts, rep: &Report{}, seen: map[string]bool{}}
}

func (b *battery) declares(op string) bool { return slices.Contains(b.desc.Operations, op) }

// call runs f on the subject, timed and recorded.
func call[T any](b *battery, op, what string, f func(ctx context.Context, p Provider) (*T, error)) outcome[T] {
	run := func(ctx context.Context, p Provider) (*T, error) {
		res, err := f(ctx, p)
		if err == nil && res == nil {
			return nil, fmt.Errorf("%w: %s returned neither a result nor an error", abi.ErrViolation, op)
		}
		if err != nil {
			return nil, err
		}
		return res, nil
	}
	start := time.Now()
	res, err := run(b.ctx, b.s.Provider)
	b.observe(what, time.Since(start))
	rec := record{op: op, what: what, err: err, replay: func(ctx context.Context, p Provider) (any, error) {
		r, err := run(ctx, p)
		if err != nil {
			return nil, err
		}
		return r, nil
	}}
	if err == nil {
		rec.res = res
	}
	b.log = append(b.log, rec)
	return outcome[T]{res, err}
}

func (b *battery) observe(what string, took time.Duration) {
	b.calls++
	if took > b.slowest {
		b.slowest = took
		b.rep.Stats.Slowest = what
	}
	if b.s.MemoryHigh != nil {
		if m := b.s.MemoryHigh(); m > b.memHigh {
			b.memHigh, b.memCall = m, what
		}
	}
}

func (b *battery) list(cursor string) outcome[abi.ListResult] {
	return call(b, abi.OpList, "list"+cursorText(cursor), func(ctx context.Context, p Provider) (*abi.ListResult, error) {
		return p.List(ctx, cursor)
	})
}

func (b *battery) templatesPage(cursor string) outcome[abi.TemplatesResult] {
	return call(b, abi.OpTemplates, "templates"+cursorText(cursor), func(ctx context.Context, p Provider) (*abi.TemplatesResult, error) {
		return p.Templates(ctx, cursor)
	})
}

func (b *battery) read(uri string) outcome[abi.ReadResult] {
	return call(b, abi.OpRead, "read "+quote(uri), func(ctx context.Context, p Provider) (*abi.ReadResult, error) {
		return p.Read(ctx, uri)
	})
}

func (b *battery) complete(req abi.CompleteRequest) outcome[abi.CompleteResult] {
	what := fmt.Sprintf("complete {%s} of %s with %s", req.Argument.Name, quote(req.Template), quote(req.Argument.Value))
	if len(req.Arguments) > 0 {
		what += fmt.Sprintf(" (other arguments %s)", argsText(req.Arguments))
	}
	return call(b, abi.OpComplete, what, func(ctx context.Context, p Provider) (*abi.CompleteResult, error) {
		return p.Complete(ctx, req)
	})
}

func (b *battery) changes(req abi.ChangesRequest) outcome[abi.ChangesResult] {
	what := "changes" + cursorText(req.Cursor)
	if len(req.Paths) > 0 {
		what += fmt.Sprintf(" with paths %q", req.Paths)
	}
	return call(b, abi.OpChanges, what, func(ctx context.Context, p Provider) (*abi.ChangesResult, error) {
		return p.Changes(ctx, req)
	})
}

func cursorText(c string) string {
	if c == "" {
		return ""
	}
	return " (cursor " + quote(c) + ")"
}

func argsText(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	s := ""
	for i, k := range keys {
		if i > 0 {
			s += ", "
		}
		s += k + "=" + quote(m[k])
	}
	return s
}

// quote quotes a guest string for a message: escaped, and cut at 200
// bytes.
func quote(s string) string {
	if len(s) > 200 {
		return strconv.Quote(s[:200]) + "..."
	}
	return strconv.Quote(s)
}

// clip cuts an error message at 600 bytes.
func clip(s string) string {
	if len(s) > 600 {
		return s[:600] + "..."
	}
	return s
}

// The error kinds a host returns, by the code a report names them with.
var kinds = []struct {
	err   error
	name  string
	fault bool // the provider misbehaved or could not run
}{
	{abi.ErrNotFound, "not_found", false},
	{abi.ErrInvalidParams, "invalid_params", false},
	{abi.ErrProviderInternal, "internal", false},
	{abi.ErrTimeout, "timeout", true},
	{abi.ErrMemory, "out of memory", true},
	{abi.ErrTrap, "trap", true},
	{abi.ErrViolation, "ABI violation", true},
	{abi.ErrOutputTooLarge, "output too large", true},
	{abi.ErrUnsupported, "not implemented", true},
	{abi.ErrQuarantined, "quarantined", true},
	{abi.ErrClosed, "closed", true},
	{abi.ErrBadInput, "refused input", true},
}

// kindName names err's kind ("not_found", "trap", ...), or "error".
func kindName(err error) string {
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return "error"
}

// isFault reports whether err is anything but a domain error (not found,
// invalid params, internal) of a provider that answered.
func isFault(err error) bool {
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k.fault
		}
	}
	return err != nil
}

// why is the text of an error for a problem.
func why(err error) string { return clip(err.Error()) }

// fixFor says how to fix a failed call, by the kind of its error.
func fixFor(err error) string {
	switch {
	case errors.Is(err, abi.ErrTimeout):
		return "the call ran to its deadline: look for a loop that does not end or work that grows with the input; `mcp-wasm call --log-level debug MODULE OPERATION` runs one call and shows the guest's log"
	case errors.Is(err, abi.ErrMemory):
		return "the instance grew its linear memory to the limit: page or stream large results and drop what a call allocated; raise --memory only if the provider really needs more"
	case errors.Is(err, abi.ErrTrap):
		return "the guest trapped (a panic, an abort, unreachable, an out-of-bounds access or a stack overflow): `mcp-wasm call --log-level debug MODULE OPERATION` shows what it logged before"
	case errors.Is(err, abi.ErrViolation):
		return "the host refused the output; the error names the rule it breaks (abi/ABI.md §6 and §7). SDKs check most rules before sending, so this usually means hand-written JSON or a value the SDK cannot check (a MIME type, a timestamp, an icon)"
	case errors.Is(err, abi.ErrOutputTooLarge):
		return "the result is over the output limit (--max-output): page it with nextCursor or return less"
	case errors.Is(err, abi.ErrUnsupported):
		return "describe declares the operation but the provider does not implement it: implement it or remove it from describe's operations"
	case errors.Is(err, abi.ErrQuarantined):
		return "the host stopped calling the provider after repeated faults: fix the faults reported before this one"
	case errors.Is(err, abi.ErrProviderInternal):
		return "the provider answered an internal error: its message is above, and the guest log (`mcp-wasm call --log-level debug`) may say more"
	case errors.Is(err, abi.ErrInvalidParams):
		return "the provider refused as invalid_params an input the host sends for a well-behaved client: accept it"
	case errors.Is(err, abi.ErrNotFound):
		return "the provider answered not_found for something it offered itself: serve what you offer, or stop offering it"
	}
	return "see the error above"
}
