package server

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk refuses handshake-era calls before initialize, except the ones it
// lists beside initialize and ping (resources/subscribe,
// resources/unsubscribe, logging/setLevel), and it counts a session as
// initialized once any 2026-07-28 request arrived on it, so that on stdio a
// stateless request opened every legacy method without a handshake. The
// handshake gate refuses, on a session that has not completed a legacy
// initialize, every legacy call but initialize and ping, with -32600 like
// go-sdk's own refusals.
//
// Both eras on one connection (stdio) hold in one order only: after a
// legacy initialize, 2026-07-28 requests are served beside the session's
// calls; but a 2026-07-28 request that comes first makes go-sdk count the
// connection as initialized with that revision, and it cannot take an
// initialize after that. The gate then says so, to initialize and to
// every legacy call, instead of go-sdk's "duplicate initialize" and a
// refusal that asks for the initialize that cannot be sent.

// handshakes records the sessions whose legacy initialize succeeded.
type handshakes struct {
	mu   sync.Mutex
	done map[*mcp.ServerSession]bool
}

// add records ss and forgets the sessions that have ended.
func (h *handshakes) add(ss *mcp.ServerSession, live func(yield func(*mcp.ServerSession) bool)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done == nil {
		h.done = map[*mcp.ServerSession]bool{}
	}
	h.done[ss] = true
	alive := map[*mcp.ServerSession]bool{}
	for s := range live {
		alive[s] = true
	}
	for s := range h.done {
		if !alive[s] && s != ss {
			delete(h.done, s)
		}
	}
}

// opened reports whether ss may serve legacy calls: its legacy initialize
// succeeded, or go-sdk made it initialized for one legacy HTTP request
// without a session (its synthesized protocol version is a legacy one).
func (h *handshakes) opened(ss *mcp.ServerSession) bool {
	h.mu.Lock()
	done := h.done[ss]
	h.mu.Unlock()
	if done {
		return true
	}
	p := ss.InitializeParams()
	return ss.ID() == "" && p != nil && p.ProtocolVersion != "" && !revision(p.ProtocolVersion).stateless()
}

// statelessFirst reports whether ss was opened by a 2026-07-28 request
// before any legacy initialize: go-sdk then holds that request's revision
// as the session's, and refuses an initialize.
func (h *handshakes) statelessFirst(ss *mcp.ServerSession) bool {
	h.mu.Lock()
	done := h.done[ss]
	h.mu.Unlock()
	p := ss.InitializeParams()
	return !done && p != nil && revision(p.ProtocolVersion).stateless()
}

// errStatelessFirst refuses a legacy call or initialize on a connection
// opened by a 2026-07-28 request.
func errStatelessFirst(method string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
		Message: fmt.Sprintf("method %q is refused: this connection's first request was a protocol 2026-07-28 one, "+
			"so it serves 2026-07-28 only and cannot take initialize; "+
			"send the request with _meta protocolVersion 2026-07-28, or open a new connection and send initialize first", method)}
}

// gated is the receiving middleware of the handshake gate.
func (s *Server) gated(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, _ := req.GetSession().(*mcp.ServerSession)
		switch {
		case ss == nil, method == "ping", strings.HasPrefix(method, "notifications/"), statelessRequest(req):
		case s.handshakes.statelessFirst(ss):
			return nil, errStatelessFirst(method)
		case method == "initialize":
			res, err := next(ctx, method, req)
			if err == nil {
				s.handshakes.add(ss, s.mcp.Sessions())
			}
			return res, err
		case !s.handshakes.opened(ss):
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: fmt.Sprintf("method %q is invalid before initialize: send initialize first, or use protocol 2026-07-28 (_meta on every request)", method)}
		}
		return next(ctx, method, req)
	}
}

// statelessRequest reports whether req carries the _meta protocol version
// of 2026-07-28 or later.
func statelessRequest(req mcp.Request) bool {
	p := req.GetParams()
	if p == nil || reflect.ValueOf(p).IsNil() { // GetMeta of a nil *XxxParams panics
		return false
	}
	v, _ := p.GetMeta()[mcp.MetaKeyProtocolVersion].(string)
	return revision(v).stateless()
}
