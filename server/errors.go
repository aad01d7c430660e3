package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Errors returned by New. Each is wrapped with the names involved and the fix.
var (
	// ErrOverlap means two providers claim overlapping URI space.
	ErrOverlap = errors.New("providers claim overlapping uri space")
	// ErrDuplicateName means two providers describe themselves with one name.
	ErrDuplicateName = errors.New("duplicate provider name")
	// ErrInvalidDescribe means a provider's describe payload is invalid.
	ErrInvalidDescribe = errors.New("invalid provider describe")
)

// JSON-RPC codes beyond the standard ones in package jsonrpc.
const (
	// codeResourceNotFound is the not-found code of the handshake revisions.
	codeResourceNotFound = -32002
)

// Messages sent to clients. Provider text never reaches a client.
const (
	msgProviderError = "provider error"
	msgNotFound      = "resource not found"
)

// notFound is the resource-not-found error of revision rev: -32002 before
// 2026-07-28, -32602 from it on, always with data.uri.
func notFound(rev revision, uri string) *jsonrpc.Error {
	code := int64(codeResourceNotFound)
	if rev.stateless() {
		code = jsonrpc.CodeInvalidParams
	}
	data, _ := json.Marshal(struct {
		URI string `json:"uri"`
	}{uri})
	return &jsonrpc.Error{Code: code, Message: msgNotFound, Data: data}
}

func invalidParams(format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

func internalError() *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msgProviderError}
}

func methodNotFound(method string) *jsonrpc.Error {
	return &jsonrpc.Error{
		Code:    jsonrpc.CodeMethodNotFound,
		Message: fmt.Sprintf("method %q not served: this server offers resources and completions only", method),
	}
}

// failure is how a provider call failed, as the client may learn it.
type failure int

const (
	failNotFound failure = iota // the provider has no such thing (or no such operation)
	failInvalid                 // the provider or host rejected the input
	failFault                   // anything else: timeout, trap, quarantine, violation, bug
)

// classify is the one translation point from provider errors (abi kinds) to
// what a client may learn. It logs faults with the provider attribute and
// never returns provider text.
func (m *backend) classify(ctx context.Context, op string, err error) failure {
	switch {
	case errors.Is(err, abi.ErrNotFound), errors.Is(err, abi.ErrUnsupported):
		return failNotFound
	case errors.Is(err, abi.ErrInvalidParams), errors.Is(err, abi.ErrBadInput):
		m.log.Debug("provider rejected the input", "op", op, "error", clip(err.Error()))
		return failInvalid
	case ctx.Err() != nil:
		m.log.Debug("provider call abandoned: request cancelled", "op", op)
		return failFault
	default:
		m.log.Warn("provider call failed", "op", op, "error", clip(err.Error()))
		return failFault
	}
}

// clip bounds a string that may carry provider text before it is logged.
func clip(s string) string {
	const maxLogText = 512
	if len(s) <= maxLogText {
		return s
	}
	return s[:maxLogText] + "...(truncated)"
}
