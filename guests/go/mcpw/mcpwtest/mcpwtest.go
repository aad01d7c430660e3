// Package mcpwtest runs a Go provider's code natively against the battery
// `mcp-wasm check` runs on a module (abi/checkkit), in the spirit of
// net/http/httptest: an author's unit test finds what check would find,
// without building wasm.
//
// Every call goes through mcpw.Dispatch, the code the wasm exports run:
// the request is encoded as the host sends it, and the output is decoded
// strictly and validated as the host does before the battery sees it. A
// fresh provider from newProvider stands for a fresh instance, so hidden
// state between calls shows as it would in the sandbox.
//
// It refuses to judge what only the sandbox can measure: time and memory
// per call (the limits check is skipped), and what the module exports
// beyond describe's operations. Run `mcp-wasm check` on the built module
// for those.
package mcpwtest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/abi/checkkit"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// Options configure a run. The zero value grants no config and takes the
// battery's default bounds.
type Options struct {
	checkkit.Options
	// Host answers config_get and receives logs, as the sandbox's grants
	// would; nil grants nothing and discards logs.
	Host mcpw.Host
}

// Check runs the battery on the providers newProvider returns and fails
// t with every failed check's problems (what, why and how to fix). It
// returns the report for further assertions.
func Check(t testing.TB, newProvider func() mcpw.Provider, opts ...Options) *checkkit.Report {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	rep := Run(t.Context(), newProvider, o)
	if !rep.Passed {
		t.Errorf("mcpwtest: provider %s fails %d check(s):\n%s", rep.Provider, rep.Failures(), rep.Summary())
	}
	return rep
}

// Run runs the battery on the providers newProvider returns: one serves
// every call in turn, as one wasm instance would, and each replayed call
// of the fresh-instance check gets a new one.
func Run(ctx context.Context, newProvider func() mcpw.Provider, opts Options) *checkkit.Report {
	if opts.Host != nil {
		ctx = mcpw.WithHost(ctx, opts.Host)
	}
	return checkkit.Run(ctx, checkkit.Subject{
		Provider: Native(newProvider()),
		Fresh: func(context.Context) (checkkit.Provider, error) {
			return freshEach(newProvider), nil
		},
	}, opts.Options)
}

// Native is p as a host sees it through the ABI: a checkkit.Provider
// whose calls go through mcpw.Dispatch, with the host's decoding and
// validation of the output and its error kinds (abi.ErrNotFound, ...).
func Native(p mcpw.Provider) checkkit.Provider { return native{p} }

type native struct{ p mcpw.Provider }

func (n native) Describe() abi.Describe {
	var d abi.Describe
	if _, err := call(context.Background(), n.p, mcpw.OpDescribe, struct{}{}, &d, nil); err != nil {
		// The battery's describe check reports the invalid description.
		return n.p.Describe()
	}
	return d
}

func (n native) space() abi.URISpace { return abi.URISpace(n.p.Describe().URISpace) }

func (n native) List(ctx context.Context, cursor string) (*abi.ListResult, error) {
	var r abi.ListResult
	return call(ctx, n.p, abi.OpList, abi.PageRequest{Cursor: cursor}, &r, func() error { return r.Validate(n.space()) })
}

func (n native) Templates(ctx context.Context, cursor string) (*abi.TemplatesResult, error) {
	var r abi.TemplatesResult
	return call(ctx, n.p, abi.OpTemplates, abi.PageRequest{Cursor: cursor}, &r, func() error { return r.Validate(n.space()) })
}

func (n native) Read(ctx context.Context, uri string) (*abi.ReadResult, error) {
	var r abi.ReadResult
	return call(ctx, n.p, abi.OpRead, abi.ReadRequest{URI: uri}, &r, func() error { return r.Validate(n.space()) })
}

func (n native) Complete(ctx context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error) {
	var r abi.CompleteResult
	return call(ctx, n.p, abi.OpComplete, req, &r, r.Validate)
}

func (n native) Changes(ctx context.Context, req abi.ChangesRequest) (*abi.ChangesResult, error) {
	var r abi.ChangesResult
	return call(ctx, n.p, abi.OpChanges, req, &r, func() error { return r.Validate(n.space()) })
}

// call encodes in, dispatches op to p and decodes the output into out as
// a host does: a domain error becomes its abi kind, and output the host
// would refuse becomes abi.ErrViolation.
func call[T any](ctx context.Context, p mcpw.Provider, op string, in any, out *T, validate func() error) (*T, error) {
	input, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("%w: encode %s input: %w", abi.ErrBadInput, op, err)
	}
	status, output := mcpw.Dispatch(ctx, p, op, input)
	if status == abi.StatusError {
		var e abi.Error
		if err := abi.Decode(output, &e); err != nil {
			return nil, fmt.Errorf("%w: %s error output: %w", abi.ErrViolation, op, err)
		}
		if err := e.Validate(); err != nil {
			return nil, fmt.Errorf("%w: %s error output: %w", abi.ErrViolation, op, err)
		}
		return nil, fmt.Errorf("%w: %s", abi.KindOf(e.Code), e.Message)
	}
	if err := abi.Decode(output, out); err != nil {
		return nil, fmt.Errorf("%w: %s output: %w", abi.ErrViolation, op, err)
	}
	if validate != nil {
		if err := validate(); err != nil {
			return nil, fmt.Errorf("%w: %s output: %w", abi.ErrViolation, op, err)
		}
	}
	return out, nil
}

// freshEach serves every call with a provider of its own.
type freshEach func() mcpw.Provider

func (f freshEach) Describe() abi.Describe { return Native(f()).Describe() }
func (f freshEach) List(ctx context.Context, c string) (*abi.ListResult, error) {
	return Native(f()).List(ctx, c)
}
func (f freshEach) Templates(ctx context.Context, c string) (*abi.TemplatesResult, error) {
	return Native(f()).Templates(ctx, c)
}
func (f freshEach) Read(ctx context.Context, u string) (*abi.ReadResult, error) {
	return Native(f()).Read(ctx, u)
}
func (f freshEach) Complete(ctx context.Context, r abi.CompleteRequest) (*abi.CompleteResult, error) {
	return Native(f()).Complete(ctx, r)
}
func (f freshEach) Changes(ctx context.Context, r abi.ChangesRequest) (*abi.ChangesResult, error) {
	return Native(f()).Changes(ctx, r)
}
