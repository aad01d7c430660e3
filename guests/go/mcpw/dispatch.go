package mcpw

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// OpDescribe is the op name Dispatch takes for the describe export; the
// other names are abi.OpList, abi.OpTemplates and so on.
const OpDescribe = "describe"

// Dispatch runs one ABI call natively: it decodes input as the host would
// send it for op, calls p, and returns the status and output bytes the wasm
// export would return. It is what the wasip1 exports call, and what tests
// and native benchmarks call directly (with WithHost for config and logs).
//
// Dispatch never panics: a panicking provider yields an "internal" error.
func Dispatch(ctx context.Context, p Provider, op string, input []byte) (abi.Status, []byte) {
	return newHandler(p).dispatch(ctx, op, input)
}

// handler caches a provider's checked describe output.
type handler struct {
	p       Provider
	once    sync.Once
	desc    abi.Describe
	descErr error
}

func newHandler(p Provider) *handler { return &handler{p: p} }

func (h *handler) dispatch(ctx context.Context, op string, input []byte) (status abi.Status, out []byte) {
	defer func() {
		if v := recover(); v != nil {
			Logf(ctx, LevelError, "mcpw: %s panicked: %v\n%s", op, v, debug.Stack())
			status, out = failure(Internal("%s panicked: %v", op, v))
		}
	}()
	if h.p == nil {
		return failure(Internal("no provider registered: call mcpw.Register from an init function of package main"))
	}
	d, err := h.describe()
	if err != nil {
		Logf(ctx, LevelError, "mcpw: %v", err)
		return failure(err)
	}
	if op == OpDescribe {
		return encode(&d)
	}
	if !slices.Contains(d.Operations, op) {
		return failure(InvalidParams("operation %q is not declared by this provider", op))
	}
	result, err := h.call(ctx, op, input, abi.URISpace(d.URISpace))
	if err != nil {
		return failure(err)
	}
	return encode(result)
}

// describe returns p.Describe() with Operations filled in and checked.
func (h *handler) describe() (abi.Describe, error) {
	h.once.Do(func() { h.desc, h.descErr = checkedDescribe(h.p) })
	return h.desc, h.descErr
}

func checkedDescribe(p Provider) (abi.Describe, error) {
	d := p.Describe()
	if len(d.Operations) == 0 {
		d.Operations = Implemented(p)
	} else {
		d.Operations = slices.Clone(d.Operations)
	}
	for _, op := range d.Operations {
		if !implements(p, op) {
			return d, Internal("describe lists operation %q but the provider does not implement it: implement the mcpw interface for %q or leave Operations empty to have it filled in", op, op)
		}
	}
	if err := d.Validate(); err != nil {
		return d, Internal("describe output is invalid: %v", err)
	}
	return d, nil
}

// call decodes the input for op, runs the provider and checks its result.
func (h *handler) call(ctx context.Context, op string, input []byte, space abi.URISpace) (any, error) {
	switch op {
	case abi.OpList:
		return callPage(ctx, input, h.p.(Lister).List, func(r abi.ListResult) (any, error) {
			r.Resources = nonNil(r.Resources)
			return &r, checkResult(op, r.Validate(space))
		})
	case abi.OpTemplates:
		return callPage(ctx, input, h.p.(Templater).Templates, func(r abi.TemplatesResult) (any, error) {
			r.ResourceTemplates = nonNil(r.ResourceTemplates)
			return &r, checkResult(op, r.Validate())
		})
	case abi.OpRead:
		return callReq(ctx, input, func(ctx context.Context, q abi.ReadRequest) (*abi.ReadResult, error) {
			return h.p.(Reader).Read(ctx, q.URI)
		}, func(r abi.ReadResult) (any, error) { return &r, checkResult(op, r.Validate(space)) })
	case abi.OpComplete:
		return callReq(ctx, input, h.p.(Completer).Complete, func(r abi.CompleteResult) (any, error) {
			r.Values = nonNil(r.Values)
			return &r, checkResult(op, r.Validate())
		})
	case abi.OpChanges:
		return callReq(ctx, input, h.p.(Changer).Changes, func(r abi.ChangesResult) (any, error) {
			return &r, checkResult(op, r.Validate(space))
		})
	}
	return nil, InvalidParams("unknown operation %q", op)
}

func callPage[Res any](ctx context.Context, input []byte, fn func(context.Context, string) (*Res, error), check func(Res) (any, error)) (any, error) {
	return callReq(ctx, input, func(ctx context.Context, q abi.PageRequest) (*Res, error) {
		return fn(ctx, q.Cursor)
	}, check)
}

// callReq decodes the request, calls fn and passes a copy of its result to
// check, so that normalising the copy never touches the provider's value.
func callReq[Req, Res any](ctx context.Context, input []byte, fn func(context.Context, Req) (*Res, error), check func(Res) (any, error)) (any, error) {
	var req Req
	if len(bytes.TrimSpace(input)) > 0 {
		if err := json.Unmarshal(input, &req); err != nil {
			return nil, InvalidParams("decode input: %v", err)
		}
	}
	res, err := fn(ctx, req)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, Internal("provider returned neither a result nor an error")
	}
	out, err := check(*res)
	if err != nil {
		Logf(ctx, LevelError, "mcpw: %v", err)
		return nil, err
	}
	return out, nil
}

func checkResult(op string, err error) error {
	if err == nil {
		return nil
	}
	return Internal("%s result rejected before sending: %v: fix the provider", op, err)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// encode renders a payload as compact JSON without HTML escaping.
func encode(v any) (abi.Status, []byte) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return failure(Internal("encode result: %v", err))
	}
	return abi.StatusOK, bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// failure renders err as an abi.Error payload with StatusError.
func failure(err error) (abi.Status, []byte) {
	e := toABIError(err)
	b, mErr := json.Marshal(&e)
	if mErr != nil {
		return abi.StatusError, []byte(fmt.Sprintf(`{"code":%q}`, abi.CodeInternal))
	}
	return abi.StatusError, b
}
