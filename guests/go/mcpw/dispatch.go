package mcpw

import (
	"context"
	"runtime/debug"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// OpDescribe is the op name Dispatch takes for the describe export; the
// other names are abi.OpList, abi.OpTemplates and so on.
const OpDescribe = "describe"

// opCode numbers the exports, so a call needs no string comparison.
type opCode uint8

const (
	opDescribe opCode = iota
	opList
	opTemplates
	opRead
	opComplete
	opChanges
	opUnknown
)

var opNames = [...]string{OpDescribe, abi.OpList, abi.OpTemplates, abi.OpRead, abi.OpComplete, abi.OpChanges, "unknown"}

func opFor(name string) opCode {
	for i, n := range opNames[:opUnknown] {
		if n == name {
			return opCode(i)
		}
	}
	return opUnknown
}

// Dispatch runs one ABI call natively: it decodes input as the host would
// send it for op, calls p, and returns the status and output bytes the wasm
// export would return. It is what tests and native benchmarks call (with
// WithHost for config and logs); the wasip1 exports run the same code with
// state kept across calls.
//
// Dispatch checks p.Describe() on every call; a wasm instance does it once.
// It never panics: a panicking provider yields an "internal" error.
func Dispatch(ctx context.Context, p Provider, op string, input []byte) (abi.Status, []byte) {
	return newHandler(p).dispatch(ctx, opFor(op), op, input, nil)
}

// handler serves one provider, one call at a time (a wasm instance runs
// one call at a time; Dispatch makes a handler per call). It computes,
// checks and encodes the provider's describe output once, on first use,
// and keeps the provider's operation interfaces, so a call asserts none.
type handler struct {
	p Provider

	ready    bool
	desc     abi.Describe
	descJSON []byte
	descErr  error
	declared [opUnknown]bool // the operations describe lists
	check    *checker        // fast result checks for the uri space

	lister    Lister
	templater Templater
	reader    Reader
	completer Completer
	changer   Changer
}

func newHandler(p Provider) *handler { return &handler{p: p} }

// dispatch runs op and appends its output to out; name is the operation's
// name as called, for messages.
func (h *handler) dispatch(ctx context.Context, op opCode, name string, input, out []byte) (status abi.Status, res []byte) {
	base := len(out)
	defer func() {
		if v := recover(); v != nil {
			Logf(ctx, LevelError, "mcpw: %s panicked: %v\n%s", name, v, debug.Stack())
			status, res = failure(out[:base], Internal("%s panicked: %v", name, v))
		}
	}()
	if h.p == nil {
		return failure(out, Internal("no provider registered: call mcpw.Register from an init function of package main"))
	}
	if !h.ready {
		h.init()
	}
	if h.descErr != nil {
		Logf(ctx, LevelError, "mcpw: %v", h.descErr)
		return failure(out, h.descErr)
	}
	if op == opDescribe {
		return abi.StatusOK, append(out, h.descJSON...)
	}
	if op == opUnknown || !h.declared[op] {
		return failure(out, InvalidParams("operation %q is not declared by this provider", name))
	}
	res, err := h.call(ctx, op, input, out)
	if err != nil {
		return failure(out[:base], err)
	}
	return abi.StatusOK, res
}

// init computes describe's output once: Operations filled in and checked,
// validated, and encoded.
func (h *handler) init() {
	h.ready = true
	// Kept if Describe panics (dispatch recovers), so later calls fail too.
	h.descErr = Internal("Describe panicked on an earlier call (see the log): fix the provider")
	h.lister, _ = h.p.(Lister)
	h.templater, _ = h.p.(Templater)
	h.reader, _ = h.p.(Reader)
	h.completer, _ = h.p.(Completer)
	h.changer, _ = h.p.(Changer)
	d, err := checkedDescribe(h.p)
	h.desc, h.descErr = d, err
	if err != nil {
		return
	}
	for _, op := range d.Operations {
		h.declared[opFor(op)] = true
	}
	h.check = newChecker(d.URISpace)
	h.descJSON = appendDescribe(nil, &d)
}

func checkedDescribe(p Provider) (abi.Describe, error) {
	d := p.Describe()
	if len(d.Operations) == 0 {
		d.Operations = Implemented(p)
	} else {
		d.Operations = append([]string(nil), d.Operations...)
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

// failure appends err as an abi.Error payload and returns StatusError.
func failure(out []byte, err error) (abi.Status, []byte) {
	e := toABIError(err)
	return abi.StatusError, appendError(out, &e)
}
