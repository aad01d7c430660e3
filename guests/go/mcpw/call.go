package mcpw

import (
	"context"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// call decodes the input for op, runs the provider, checks its result and
// appends it to out as JSON.
func (h *handler) call(ctx context.Context, op opCode, input, out []byte) ([]byte, error) {
	switch op {
	case opList:
		return h.list(ctx, input, out)
	case opTemplates:
		return h.templates(ctx, input, out)
	case opRead:
		return h.read(ctx, input, out)
	case opComplete:
		return h.complete(ctx, input, out)
	case opChanges:
		return h.changes(ctx, input, out)
	}
	return nil, InvalidParams("unknown operation")
}

func (h *handler) list(ctx context.Context, input, out []byte) ([]byte, error) {
	var q abi.PageRequest
	if err := decodeInput(input, &q); err != nil {
		return nil, err
	}
	r, err := h.lister.List(ctx, q.Cursor)
	if err = got(r, err); err != nil {
		return nil, err
	}
	page := *r // a copy: normalising must not touch the provider's value
	page.Resources = nonNil(page.Resources)
	if !h.check.listResult(&page) {
		if err := h.rejected(ctx, opList, page.Validate(h.desc.URISpace)); err != nil {
			return nil, err
		}
	}
	return encodeResult(out, &page)
}

func (h *handler) templates(ctx context.Context, input, out []byte) ([]byte, error) {
	var q abi.PageRequest
	if err := decodeInput(input, &q); err != nil {
		return nil, err
	}
	r, err := h.templater.Templates(ctx, q.Cursor)
	if err = got(r, err); err != nil {
		return nil, err
	}
	page := *r
	page.ResourceTemplates = nonNil(page.ResourceTemplates)
	if !h.check.templatesResult(&page) {
		if err := h.rejected(ctx, opTemplates, page.Validate(h.desc.URISpace)); err != nil {
			return nil, err
		}
	}
	return encodeResult(out, &page)
}

func (h *handler) read(ctx context.Context, input, out []byte) ([]byte, error) {
	var q abi.ReadRequest
	if err := decodeInput(input, &q); err != nil {
		return nil, err
	}
	r, err := h.reader.Read(ctx, q.URI)
	if err = got(r, err); err != nil {
		return nil, err
	}
	if !h.check.readResult(r) {
		if err := h.rejected(ctx, opRead, WireForm(r).Validate(h.desc.URISpace)); err != nil {
			return nil, err
		}
	}
	return encodeResult(out, r)
}

// WireForm is r as a host sees it once it has resolved the contents handed
// over raw: a blob given as Data becomes the base64 the host makes of it.
// A native host of a provider (a test, a benchmark anchor) calls it on what
// Read returns.
func WireForm(r *abi.ReadResult) *abi.ReadResult {
	w := *r
	w.Contents = append([]abi.Content(nil), r.Contents...)
	for i := range w.Contents {
		if c := &w.Contents[i]; c.Data != nil && c.Blob == nil {
			s := encodeBase64(c.Data)
			c.Blob, c.Data = &s, nil
		}
	}
	return &w
}

func (h *handler) complete(ctx context.Context, input, out []byte) ([]byte, error) {
	var q abi.CompleteRequest
	if err := decodeInput(input, &q); err != nil {
		return nil, err
	}
	r, err := h.completer.Complete(ctx, q)
	if err = got(r, err); err != nil {
		return nil, err
	}
	res := *r
	res.Values = nonNil(res.Values)
	if err := h.rejected(ctx, opComplete, res.Validate()); err != nil {
		return nil, err
	}
	return encodeResult(out, &res)
}

func (h *handler) changes(ctx context.Context, input, out []byte) ([]byte, error) {
	var q abi.ChangesRequest
	if err := decodeInput(input, &q); err != nil {
		return nil, err
	}
	r, err := h.changer.Changes(ctx, q)
	if err = got(r, err); err != nil {
		return nil, err
	}
	if !h.check.changesResult(r) {
		if err := h.rejected(ctx, opChanges, r.Validate(h.desc.URISpace)); err != nil {
			return nil, err
		}
	}
	return encodeResult(out, r)
}

// got turns a provider's (result, error) into the error to send, if any.
func got[T any](r *T, err error) error {
	if err != nil {
		return err
	}
	if r == nil {
		return Internal("provider returned neither a result nor an error")
	}
	return nil
}

// rejected turns a failed abi validation into an "internal" error, logged,
// so a provider bug is reported as such rather than as an ABI violation
// the host would discard the instance for.
func (h *handler) rejected(ctx context.Context, op opCode, err error) error {
	if err == nil {
		return nil
	}
	err = Internal("%s result rejected before sending: %v: fix the provider", opNames[op], err)
	Logf(ctx, LevelError, "mcpw: %v", err)
	return err
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// encodeResult appends a checked result; it fails only for a NaN or
// infinite float, which abi validation rejects before this is reached.
func encodeResult(out []byte, v any) ([]byte, error) {
	b, err := appendPayload(out, v)
	if err != nil {
		return nil, Internal("encode result: %v", err)
	}
	return b, nil
}
