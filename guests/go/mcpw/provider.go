// Package mcpw is the Go SDK for mcp-wasm resource providers. A provider
// author implements Provider plus the optional operation interfaces (Lister,
// Templater, Reader, Completer, Changer), calls Register from an init
// function of a package main, and builds with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o provider.wasm .
//
// The SDK owns the mcpw_v1 ABI: it reads the call's input, decodes it,
// calls the provider, checks and encodes the result, and writes it back. The
// author never sees a pointer. Everything except the wasip1 export shim is
// plain Go, so the same provider runs natively under go test (see Dispatch
// and MapHost).
//
// The SDK refuses to send output the host would reject: a result that fails
// abi validation (a URI outside the declared uriSpace, empty contents, bad
// base64) becomes an "internal" error with a log line naming the problem.
// It does not sandbox the provider; the host does.
//
// In a guest every jump costs ~24 ns (the runtime's deadline check), so the
// call path avoids encoding/json and reflection: results are encoded by a
// hand-written encoder that writes exactly what encoding/json would, and
// checked by a fast test that falls back to abi validation. See
// guests/go/README.md, "Per-call cost".
package mcpw

import (
	"context"
	"sync"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// Provider is what every provider implements. Describe is called once per
// instance, before any operation, and must not depend on config: the
// operator grants config keys after reading Describe's requests.
//
// Describe().Operations may be left empty: the SDK then fills it with the
// operations the provider implements. If set, every listed operation must be
// implemented; an implemented operation left out is never called.
type Provider interface {
	Describe() abi.Describe
}

// Lister serves the "list" operation: one page of resources. cursor is ""
// for the first page, else a NextCursor this provider returned.
type Lister interface {
	List(ctx context.Context, cursor string) (*abi.ListResult, error)
}

// Templater serves the "templates" operation: one page of URI templates.
type Templater interface {
	Templates(ctx context.Context, cursor string) (*abi.TemplatesResult, error)
}

// Reader serves the "read" operation. Return NotFound for an unknown URI.
type Reader interface {
	Read(ctx context.Context, uri string) (*abi.ReadResult, error)
}

// Completer serves the "complete" operation for template arguments.
type Completer interface {
	Complete(ctx context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error)
}

// Changer serves the "changes" operation: what changed since req.Cursor.
type Changer interface {
	Changes(ctx context.Context, req abi.ChangesRequest) (*abi.ChangesResult, error)
}

var (
	registeredMu sync.Mutex
	registered   Provider
)

// Register makes p the provider this module serves. Call it exactly once,
// from an init function of the guest's main package; a second call panics,
// which fails the module's load with the panic text in the guest log.
func Register(p Provider) {
	registeredMu.Lock()
	defer registeredMu.Unlock()
	if p == nil {
		panic("mcpw.Register: provider is nil")
	}
	if registered != nil {
		panic("mcpw.Register called twice: a module serves exactly one provider")
	}
	registered = p
}

// current returns the registered provider, or nil.
func current() Provider {
	registeredMu.Lock()
	defer registeredMu.Unlock()
	return registered
}

// Implemented lists, in canonical order (abi.Operations), the operations p
// implements through the optional interfaces.
func Implemented(p Provider) []string {
	ops := []string{}
	for _, op := range abi.Operations {
		if implements(p, op) {
			ops = append(ops, op)
		}
	}
	return ops
}

func implements(p Provider, op string) bool {
	var ok bool
	switch op {
	case abi.OpList:
		_, ok = p.(Lister)
	case abi.OpTemplates:
		_, ok = p.(Templater)
	case abi.OpRead:
		_, ok = p.(Reader)
	case abi.OpComplete:
		_, ok = p.(Completer)
	case abi.OpChanges:
		_, ok = p.(Changer)
	}
	return ok
}
