package server

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Audit decisions.
const (
	decisionAllow = "allow" // served
	decisionDeny  = "deny"  // refused: not found, invalid, unauthenticated, limited, ...
	decisionError = "error" // failed on our side or the provider's
)

// auditEvent is one audit line: who did what to which resource, how it
// was decided, how many bytes it served and how long it took.
type auditEvent struct {
	who, session, method, tool, uri, provider string
	decision, reason                          string
	rule                                      string // the access rule that decided (aclserve.go)
	status                                    int    // HTTP status, for refusals before MCP
	bytes                                     int64
	duration                                  time.Duration
}

// audit writes e to the audit logger (every line carries audit=true).
// Client-supplied strings are clipped.
func (s *Server) audit(ctx context.Context, e auditEvent) {
	if !s.auditLog.Enabled(ctx, slog.LevelInfo) {
		return // off, or below the log's level: build nothing
	}
	attrs := []slog.Attr{slog.String("who", clip(e.who)), slog.String("method", e.method)}
	add := func(k, v string) {
		if v != "" {
			attrs = append(attrs, slog.String(k, clip(v)))
		}
	}
	add("session", e.session)
	add("tool", e.tool)
	add("uri", e.uri)
	add("provider", e.provider)
	attrs = append(attrs, slog.String("decision", e.decision))
	add("reason", e.reason)
	add("rule", e.rule)
	if e.status != 0 {
		attrs = append(attrs, slog.Int("status", e.status))
	}
	attrs = append(attrs, slog.Int64("bytes", e.bytes), slog.Duration("duration", e.duration))
	s.auditLog.LogAttrs(ctx, slog.LevelInfo, "audit", attrs...)
}

// audited is the outermost receiving middleware: it writes an audit line
// for every request except the lifecycle ones (initialize, ping,
// server/discover, notifications). It also gives go-sdk's plain error for
// a second initialize on a session the code -32600, invalid request,
// instead of 0 (over HTTP; on stdio the transport does it).
func (s *Server) audited(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch {
		case method == "initialize":
			res, err := next(ctx, method, req)
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && err == nil {
				s.remember(ctx, ss) // for list changes under access rules (aclserve.go)
			}
			return res, coded(err)
		case method == "ping", method == "server/discover", strings.HasPrefix(method, "notifications/"):
			return next(ctx, method, req)
		}
		start := time.Now()
		res, err := next(ctx, method, req)
		s.countDenial(ctx, method, req, res)
		s.auditCall(ctx, method, req, res, err, start)
		return res, err
	}
}

// auditCall writes the audit line of a request that began at start. It is
// not inlined into audited, whose frame is on the stack during every call
// of a provider (Server.read).
//
//go:noinline
func (s *Server) auditCall(ctx context.Context, method string, req mcp.Request, res mcp.Result, err error, start time.Time) {
	if !s.auditLog.Enabled(ctx, slog.LevelInfo) {
		return // off, or below the log's level: find nothing out
	}
	who, session := whoOf(ctx, req)
	e := auditEvent{who: who, session: session, method: method}
	if t, ok := res.(*callToolResult); ok && t.outcome != nil {
		// A tool of the view: its line is the resource method's, named.
		o := t.outcome
		e.tool, e.uri, e.provider, e.bytes = o.tool, o.uri, o.provider, o.bytes
		e.decision, e.reason = decisionAllow, ""
		if o.err != nil {
			e.decision, e.reason = decide(o.err)
		}
	} else {
		if c, ok := req.(*mcp.CallToolRequest); ok && c.Params != nil {
			e.tool = c.Params.Name // a tool not offered
		}
		e.uri = uriOf(req)
		e.provider, e.bytes = s.providerOf(e.uri), servedBytes(res)
		e.decision, e.reason = decide(err)
	}
	e.rule, _ = s.accessOf(ctx, method, e.uri)
	e.duration = time.Since(start)
	s.audit(ctx, e)
}

// coded returns err as a JSON-RPC error, -32600 if it has no code.
func coded(err error) error {
	var werr *jsonrpc.Error
	if err == nil || errors.As(err, &werr) {
		return err
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: err.Error()}
}

// clientAddrKey carries the remote IP of an HTTP request to the audit line
// of an anonymous client.
type clientAddrKey struct{}

// whoOf names the client of req: its principalKey when authenticated (the
// TokenInfo UserID withTokenInfo set), else the legacy
// session, else the remote address of an anonymous HTTP client, else
// "stdio".
func whoOf(ctx context.Context, req mcp.Request) (who, session string) {
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		session = ss.ID()
	}
	if x := req.GetExtra(); x != nil && x.TokenInfo != nil && x.TokenInfo.UserID != "" {
		return x.TokenInfo.UserID, session
	}
	if session != "" {
		return "session:" + session, session
	}
	if addr, ok := ctx.Value(clientAddrKey{}).(string); ok {
		return "anonymous@" + addr, ""
	}
	if x := req.GetExtra(); x != nil && x.Header != nil {
		return "anonymous", ""
	}
	return "stdio", ""
}

// uriOf returns the resource URI a request names, if any.
func uriOf(req mcp.Request) string {
	switch p := req.GetParams().(type) {
	case *mcp.ReadResourceParams:
		return p.URI
	case *mcp.SubscribeParams:
		return p.URI
	case *mcp.UnsubscribeParams:
		return p.URI
	case *mcp.CompleteParams:
		if p.Ref != nil {
			return p.Ref.URI
		}
	case *skillsGetParams: // skills.go
		return p.URI
	case *directoryReadParams:
		return p.URI
	}
	return ""
}

// providerOf names the provider that owns uri, or "".
func (s *Server) providerOf(uri string) string {
	if uri == "" {
		return ""
	}
	_, u, err := checkURI(uri)
	if err != nil {
		return ""
	}
	set := s.acquire()
	defer set.release()
	if m := set.owner(u); m != nil {
		return m.name
	}
	return ""
}

// decide turns the outcome of a request into a decision and a reason.
func decide(err error) (decision, reason string) {
	if err == nil {
		return decisionAllow, ""
	}
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) {
		return decisionError, "internal"
	}
	switch {
	case werr.Message == msgNotFound:
		return decisionDeny, "not_found"
	case werr.Code == jsonrpc.CodeMethodNotFound:
		return decisionDeny, "method_not_found"
	case werr.Code == jsonrpc.CodeInvalidParams:
		return decisionDeny, "invalid_params"
	}
	return decisionError, "internal"
}

// servedBytes is the size of the contents a read served: text bytes plus
// decoded blob bytes.
func servedBytes(res mcp.Result) int64 {
	r, ok := res.(*readResult)
	if !ok {
		return 0
	}
	var n int64
	for _, c := range r.Contents {
		n += contentBytes(c.Text, c.Blob)
	}
	return n
}
