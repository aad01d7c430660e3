package server

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// On 2026-07-28, go-sdk sends every -32602 error response with HTTP 400,
// but the Streamable HTTP transport reserves 400 for requests the
// transport or the protocol layer refuses (a missing _meta field, a header
// mismatch, an unsupported version, a missing client capability): a
// dual-era client that gets a 400 without one of those errors concludes
// the server is a legacy one and falls back to initialize
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#backward-compatibility).
// An error result of a request the server did serve (a resource not found,
// an invalid cursor, an unknown tool) is an ordinary JSON-RPC response,
// sent with 200 like any other. go-sdk's own refusals keep their 400.

// answerMark records, for one HTTP request, that the JSON-RPC error it is
// answered with came from the server's own handlers.
type answerMark struct{ served atomic.Bool }

type answerMarkKey struct{}

// served marks err, if it is an invalid-params error, as the answer of a
// request the server served, so that HTTP sends it with 200; it returns
// err. Off HTTP it only returns err.
func served(ctx context.Context, err error) error {
	var je *jsonrpc.Error
	if errors.As(err, &je) && je.Code == jsonrpc.CodeInvalidParams {
		if m, ok := ctx.Value(answerMarkKey{}).(*answerMark); ok {
			m.served.Store(true)
		}
	}
	return err
}
