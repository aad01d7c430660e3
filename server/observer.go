package server

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Observer is told about the MCP traffic of one transport, for metrics
// (cmd/mcp-wasm feeds internal/metrics from it, one Observer per
// transport). Its methods are called on the goroutine handling the
// message, with no lock held, and must return quickly.
type Observer interface {
	// Request reports one handled message: method is an MCP method name
	// (unknown ones are reported as "other"), outcome "ok" or the JSON-RPC
	// error code ("-32602", ...; "error" for an error without a code).
	Request(method, outcome string, d time.Duration)
	// Notification reports one notification sent to a client.
	Notification(method string)
	// Session reports a session of a handshake revision opened by a
	// successful initialize (1) or ended (-1).
	Session(delta int)
	// Stream reports a subscriptions/listen stream opened (1) or ended (-1).
	Stream(delta int)
}

// WithObserver sets the observer told about every message this server
// handles and every notification it sends. Defaults to none.
func (c Config) WithObserver(o Observer) Config {
	c.observer = o
	return c
}

// observedMethods are the method names reported as themselves; any other
// name a client sends is reported as "other", so a client cannot grow the
// observer's label sets.
var observedMethods = map[string]bool{
	"initialize": true, "ping": true, "server/discover": true, "logging/setLevel": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
	methodSubscribe: true, methodUnsubscribe: true, methodListen: true, "completion/complete": true,
	"tools/list": true, "tools/call": true, "prompts/list": true, "prompts/get": true,
	"notifications/initialized": true, "notifications/cancelled": true,
	"notifications/roots/list_changed": true, "notifications/progress": true,
}

func observedMethod(method string) string {
	if observedMethods[method] {
		return method
	}
	return "other"
}

// addObserver hooks the configured observer into go-sdk, if any. New calls
// it before the other sending middleware is added, so it sits closest to
// the wire and counts only notifications that are actually sent.
func (s *Server) addObserver() {
	if s.cfg.observer == nil {
		return
	}
	s.mcp.AddSendingMiddleware(s.observeSent)
	s.mcp.AddReceivingMiddleware(s.observeReceived)
}

// observeReceived reports every message received, its outcome and time,
// sessions opened by initialize and open listen streams.
func (s *Server) observeReceived(next mcp.MethodHandler) mcp.MethodHandler {
	obs := s.cfg.observer
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		start := time.Now()
		if method == methodListen {
			obs.Stream(1)
			defer obs.Stream(-1)
		}
		res, err := next(ctx, method, req)
		obs.Request(observedMethod(method), outcomeOf(res, err), time.Since(start))
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && method == "initialize" && err == nil {
			obs.Session(1)
			go func() { // ends with the session, which go-sdk closes
				_ = ss.Wait()
				obs.Session(-1)
			}()
		}
		return res, err
	}
}

// observeSent reports every notification that go-sdk sends.
func (s *Server) observeSent(next mcp.MethodHandler) mcp.MethodHandler {
	obs := s.cfg.observer
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err == nil && strings.HasPrefix(method, "notifications/") {
			obs.Notification(method)
		}
		return res, err
	}
}

// outcomeOf is the outcome of a handled message: a tool error result of
// the resource tools view counts as the JSON-RPC error the same failure is
// on the resource method, so that a not found or a provider fault is
// counted alike through either.
func outcomeOf(res mcp.Result, err error) string {
	if t, ok := res.(*callToolResult); ok && err == nil && t.outcome != nil && t.outcome.err != nil {
		return outcome(t.outcome.err)
	}
	return outcome(err)
}

// outcome is "ok", the JSON-RPC code of err, or "error".
func outcome(err error) string {
	var je *jsonrpc.Error
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &je):
		return strconv.FormatInt(je.Code, 10)
	default:
		return "error"
	}
}
