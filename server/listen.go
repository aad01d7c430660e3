package server

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Methods of live resources. go-sdk parses them and runs the listen; the
// server validates, bounds, and delivers the notifications.
const (
	methodSubscribe       = "resources/subscribe"
	methodUnsubscribe     = "resources/unsubscribe"
	methodListen          = "subscriptions/listen"
	notifyAcknowledged    = "notifications/subscriptions/acknowledged"
	notifyResourceUpdated = "notifications/resources/updated"
	notifyListChanged     = "notifications/resources/list_changed"
	notifyProgress        = "notifications/progress"
	notifyCancelled       = "notifications/cancelled"
)

// subscribeHandler is go-sdk's SubscribeHandler, called for a legacy
// resources/subscribe and for each resourceSubscriptions URI of a listen
// (an error then fails the whole listen: only a bound can, since listen
// hands go-sdk only the URIs honoured). The URI is validated like a read
// and must lie in some provider's uri space; the provider is not called, so
// a client may subscribe to a resource that does not exist yet.
func (s *Server) subscribeHandler(ctx context.Context, req *mcp.SubscribeRequest) error {
	err := s.subscribe(ctx, clientOf(ctx), req)
	if err == nil && req.Params != nil && !revisionOf(req, req.Params.Meta).stateless() {
		s.fleetSubscribed(req.Session, req.Params.URI, true) // bus.go
	}
	return served(ctx, err)
}

// subscribe subscribes the session of req, opened by client, to its URI.
func (s *Server) subscribe(ctx context.Context, client string, req *mcp.SubscribeRequest) error {
	if req.Params == nil {
		return invalidParams("missing params")
	}
	rev := revisionOf(req, req.Params.Meta)
	raw := req.Params.URI
	norm, u, err := checkURI(raw)
	if err != nil {
		s.log.Debug("subscribe refused", "reason", err)
		return invalidParams("%v", err)
	}
	set := s.acquireFor(ctx)
	m := set.owner(u)
	set.release()
	if m == nil || !m.allows(norm) {
		return notFound(rev, raw)
	}
	s.remember(ctx, req.Session)
	return s.subs.add(req.Session, client, raw, subscriptionKey(norm), rev.stateless())
}

// unsubscribeHandler is go-sdk's UnsubscribeHandler: a legacy
// resources/unsubscribe, or the end of a listen. Unsubscribing from what
// is not subscribed succeeds; a legacy unsubscribe under any spelling of a
// resource's URI ends the session's subscription to it.
func (s *Server) unsubscribeHandler(_ context.Context, req *mcp.UnsubscribeRequest) error {
	if req.Params == nil {
		return invalidParams("missing params")
	}
	s.subs.remove(req.Session, req.Params.URI, revisionOf(req, req.Params.Meta).stateless())
	if !revisionOf(req, req.Params.Meta).stateless() {
		s.fleetSubscribed(req.Session, req.Params.URI, false) // bus.go
	}
	return nil
}

// listen serves subscriptions/listen through go-sdk, which subscribes,
// acknowledges and blocks until the listen ends. The server refuses the
// method on the handshake revisions and bounds the open listens of a
// session, of a client and of all clients.
func (s *Server) listen(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	r, ok := req.(*mcp.SubscriptionsListenRequest)
	if !ok || r.Params == nil || r.Params.Notifications == nil {
		return next(ctx, method, req) // go-sdk answers the malformed request
	}
	if !revisionOf(req, r.Params.Meta).stateless() {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
			Message: fmt.Sprintf("%s is a 2026-07-28 method: use %s on this revision", methodListen, methodSubscribe)}
	}
	if err := s.subs.beginListen(r.Session, clientOf(ctx)); err != nil {
		return nil, served(ctx, err)
	}
	r.Params.Notifications = s.honoured(ctx, r.Params.Notifications)
	s.remember(ctx, r.Session)
	if end, ok := ctx.Value(listensEndKey{}).(context.Context); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(end, cancel)()
	}
	res, err := next(ctx, method, req)
	var id any
	if lr, ok := res.(*mcp.SubscriptionsListenResult); ok && lr != nil {
		id = lr.Meta[mcp.MetaKeySubscriptionID]
	}
	s.subs.endListen(r.Session, id)
	return res, err
}

// listensEndKey carries, on the context of a transport's requests, a
// context done when the transport is ending: its open listens then end,
// each with its final result, before the transport closes. ServeStdio sets
// it at the end of its input; the HTTP handler at shutdown.
type listensEndKey struct{}

// honoured returns the subscriptions of a listen the server honours: the
// acknowledgement reflects that subset (go-sdk acknowledges what it is
// handed), so a URI a read would refuse, or that no provider owns, is left
// out of it instead of failing the whole listen. Its other resources are
// still heard.
func (s *Server) honoured(ctx context.Context, n *mcp.NotificationSubscriptions) *mcp.NotificationSubscriptions {
	out := *n
	out.ResourceSubscriptions = nil
	set := s.acquireFor(ctx)
	defer set.release()
	for _, raw := range n.ResourceSubscriptions {
		if norm, u, err := checkURI(raw); err == nil {
			if m := set.owner(u); m != nil && m.allows(norm) {
				out.ResourceSubscriptions = append(out.ResourceSubscriptions, raw)
				continue
			}
		}
		s.log.Debug("listen: resource left out of the acknowledgement", "reason", "not a resource of this server")
	}
	return &out
}

// sending is the sending middleware of live resources. It registers a
// listen once its acknowledgement has gone out, so nothing reaches a listen
// before its acknowledgement (a change flushed in between is one the
// client sees anyway when it reads after the acknowledgement, since
// providers report changes after they happen). It sends the server's own change
// notifications, which travel to it as a progress notification carrying an
// *outgoing: go-sdk has no public way to send an arbitrary notification on
// a session, and this way it still goes through the session's connection
// and transport, stdio or HTTP alike.
func (s *Server) sending(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case notifyProgress:
			if p, ok := req.GetParams().(*mcp.ProgressNotificationParams); ok {
				if o, ok := p.ProgressToken.(*outgoing); ok {
					return next(ctx, o.method, o.request())
				}
			}
		case notifyAcknowledged:
			res, err := next(ctx, method, req)
			p, _ := req.GetParams().(*mcp.SubscriptionsAcknowledgedParams)
			ss, _ := req.GetSession().(*mcp.ServerSession)
			if err == nil && p != nil && ss != nil && p.Meta[mcp.MetaKeySubscriptionID] != nil {
				s.subs.acknowledged(ss, p.Meta[mcp.MetaKeySubscriptionID], p.Notifications)
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}
