package loadtest

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// Native serves a Go SDK provider in-process, as a server.Provider: no
// sandbox, no ABI, no JSON between host and provider. It is the baseline
// the same provider compiled to wasm is compared against. The provider
// gets no host services (config, logs): give it only providers that need
// none, such as the conformance fixtures.
type Native struct {
	p   mcpw.Provider
	ops []string
}

// NewNative wraps p, which must be safe for concurrent calls.
func NewNative(p mcpw.Provider) *Native {
	var ops []string
	for _, op := range mcpw.Implemented(p) {
		if op != abi.OpChanges { // the server does not call changes
			ops = append(ops, op)
		}
	}
	return &Native{p: p, ops: ops}
}

// Describe is the provider's describe with the operations it implements.
func (n *Native) Describe() abi.Describe {
	d := n.p.Describe()
	d.Operations = slices.Clone(n.ops)
	return d
}

func (n *Native) List(ctx context.Context, cursor string) (*abi.ListResult, error) {
	l, ok := n.p.(mcpw.Lister)
	if !ok {
		return nil, unsupported(abi.OpList)
	}
	return l.List(ctx, cursor)
}

func (n *Native) Templates(ctx context.Context, cursor string) (*abi.TemplatesResult, error) {
	t, ok := n.p.(mcpw.Templater)
	if !ok {
		return nil, unsupported(abi.OpTemplates)
	}
	return t.Templates(ctx, cursor)
}

// Read maps the SDK's not-found error to abi.ErrNotFound, as the runtime
// does for a wasm provider, so the server answers it the same way.
func (n *Native) Read(ctx context.Context, uri string) (*abi.ReadResult, error) {
	r, ok := n.p.(mcpw.Reader)
	if !ok {
		return nil, unsupported(abi.OpRead)
	}
	res, err := r.Read(ctx, uri)
	if err != nil {
		return nil, domainErr(err)
	}
	return mcpw.WireForm(res), nil
}

func (n *Native) Complete(ctx context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error) {
	c, ok := n.p.(mcpw.Completer)
	if !ok {
		return nil, unsupported(abi.OpComplete)
	}
	res, err := c.Complete(ctx, req)
	return res, domainErr(err)
}

func unsupported(op string) error { return fmt.Errorf("%w: %s", abi.ErrUnsupported, op) }

// domainErr wraps an SDK error in the abi kind of its code.
func domainErr(err error) error {
	if err == nil {
		return nil
	}
	kind := abi.ErrProviderInternal
	if e := (*mcpw.Error)(nil); errors.As(err, &e) {
		kind = abi.KindOf(e.Code)
	}
	return fmt.Errorf("%w: %w", kind, err)
}
