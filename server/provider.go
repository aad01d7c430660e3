package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// Provider is a source of resources: in production a wasm module run by the
// runtime package, in tests an in-process Go implementation (see
// server/servertest).
//
// Errors wrap the abi kinds (abi.ErrNotFound, abi.ErrInvalidParams,
// abi.ErrTimeout, abi.ErrTrap, abi.ErrQuarantined, ...); the server maps
// them to JSON-RPC codes with errors.Is and never shows their text to a
// client. Results are expected to be validated already (abi Validate
// methods); the server still re-checks what its own safety depends on: URI
// ownership and the shape of read contents.
//
// Every method except Describe may be called concurrently. The server calls
// an operation only if Describe lists it in Operations, and always with a
// context carrying its own deadline.
type Provider interface {
	// Describe returns the provider's validated describe payload. It is
	// called once, by New or SetProviders.
	Describe() abi.Describe
	List(ctx context.Context, cursor string) (*abi.ListResult, error)
	Templates(ctx context.Context, cursor string) (*abi.TemplatesResult, error)
	Read(ctx context.Context, uri string) (*abi.ReadResult, error)
	Complete(ctx context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error)
}

// errProviderPanic marks a provider call that panicked.
var errProviderPanic = errors.New("provider panicked")

// backend is a provider as the server sees it, the one its URI space routes
// to: its describe facts, fixed at New or SetProviders, and the operator's
// rule for what clients see of it.
type backend struct {
	name   string
	p      Provider
	space  abi.URISpace
	ops    []string
	cache  *abi.CacheHint
	filter URIFilter
	log    *slog.Logger

	// grants are the filters of the access rules for the client of a
	// view (aclview.go); restricted is set in a view, where no grant
	// hides everything.
	grants     []URIFilter
	restricted bool
	// origin is the provider set's own backend a view's copy was made
	// from (nil outside a view): what is kept per provider, such as the
	// list cache's pages, is kept under it, not under the per-request copy.
	origin *backend
}

// shared is the backend that per-provider state is kept under: m itself,
// or the backend a view's copy of m was made from.
func (m *backend) shared() *backend {
	if m.origin != nil {
		return m.origin
	}
	return m
}

func newBackend(p Provider, d abi.Describe, log *slog.Logger) *backend {
	var cache *abi.CacheHint
	if d.Cache != nil {
		c := *d.Cache
		cache = &c
	}
	var filter URIFilter
	if f, ok := p.(*filtered); ok {
		p, filter = f.Provider, f.filter
	}
	return &backend{
		name:   d.Name,
		p:      p,
		space:  slices.Clone(abi.URISpace(d.URISpace)),
		ops:    slices.Clone(d.Operations),
		cache:  cache,
		filter: filter,
		log:    log.With("provider", d.Name),
	}
}

// has reports whether the provider implements op (abi.OpList, ...).
func (m *backend) has(op string) bool { return slices.Contains(m.ops, op) }

// callProvider runs one provider operation under its own deadline (the
// configured call timeout, on top of ctx). A panic in the provider, a bug
// in host code, becomes an error wrapping errProviderPanic, logged with its
// stack, so that one provider cannot take the server down.
func callProvider[T any](ctx context.Context, timeout time.Duration, m *backend, op string, f func(context.Context) (T, error)) (res T, err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			m.log.Error("provider panicked", "op", op, "panic", clip(fmt.Sprint(r)), "stack", string(debug.Stack()))
			var zero T
			res, err = zero, fmt.Errorf("%w in %s", errProviderPanic, op)
		}
	}()
	return f(ctx)
}
