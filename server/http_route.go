package server

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// HTTP header names of the Streamable HTTP transport.
const (
	headerProtocolVersion = "MCP-Protocol-Version"
	headerSessionID       = "Mcp-Session-Id"
	headerMethod          = "Mcp-Method"
)

// serveMCP serves /mcp: admit, then hand the request to the go-sdk
// handler of its era, through a streamWriter.
func (h *httpHandler) serveMCP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	ctx, pk, answered := h.admit(w, r, start)
	if answered {
		return
	}
	sealID, fleetDone, answered := h.fleetRequest(ctx, w, r, pk) // fleet_http.go
	if answered {
		return
	}
	defer fleetDone()
	switch {
	case r.Method == http.MethodGet:
		h.events.resumeFromNow(r)
		// A legacy GET stream carries no answer: shutdown ends it.
		var stop context.CancelFunc
		ctx, stop = context.WithCancel(ctx)
		defer context.AfterFunc(h.streams, stop)()
		defer stop()
	case pk.method == methodListen:
		// A listen is answered when it ends: shutdown ends it through
		// the server (listen.go), so that its final result is sent.
		ctx = context.WithValue(ctx, listensEndKey{}, h.streams)
	case pk.cancels != nil:
		h.cancelListen(ctx, r, *pk.cancels)
	}
	notificationMethodHeader(r, pk)
	h.reaper.sweep(h.s.mcp.Sessions())
	next, stateful := h.route(r, pk)
	if id := r.Header.Get(headerSessionID); stateful && id != "" {
		defer h.reaper.begin(id)()
	}
	sw := newStreamWriter(w, h.cfg.keepAlive, h.cfg.writeTimeout)
	defer sw.finish()
	ctx, sw.abort = context.WithCancel(ctx)
	defer sw.abort()
	if pk.method == methodListen && pk.id != nil {
		// A cancel for it ends the request: its stream closes unanswered.
		defer h.listens.add(h.clientKey(ctx, r), *pk.id, sw.cancel)()
	}
	sw.lagging = func() { h.lagging(ctx, r) }
	sw.header = sealID
	sw.mark = &answerMark{}
	ctx = context.WithValue(ctx, answerMarkKey{}, sw.mark)
	if stateful && pk.method == "initialize" {
		opened, refused := h.sessions.reserve(h.clientKey(ctx, r), h.s.mcp.Sessions())
		if refused != "" {
			h.refuseSession(w, refused)
			h.deny(ctx, r, start, refused, sessionRefusalStatus(refused))
			return
		}
		defer func() { opened(cmp.Or(sw.localSession(), sw.Header().Get(headerSessionID))) }()
	}
	next.ServeHTTP(sw, r.WithContext(ctx))
}

// clientKey names the client that the rate limit and legacy sessions are
// counted against: its principalKey, the authenticated principal (kind,
// issuer and subject), else the client address (its /64 for IPv6).
func (h *httpHandler) clientKey(ctx context.Context, r *http.Request) string {
	p, _ := ctx.Value(principalCtxKey{}).(*principal)
	return clientKeyFor(p, h.clientAddr(r))
}

// lagging logs and counts a client whose event stream is closed because it
// did not read within the write timeout.
func (h *httpHandler) lagging(ctx context.Context, r *http.Request) {
	h.s.log.Warn("closing a stream: its client did not read within the write timeout",
		"client", ctx.Value(clientAddrKey{}), "method", r.Method, "write_timeout", h.cfg.writeTimeout)
	h.s.laggard("write_timeout")
}

func sessionRefusalStatus(refused string) int {
	if refused == clientSessionsFull {
		return http.StatusTooManyRequests
	}
	return http.StatusServiceUnavailable
}

// refuseSession answers an initialize past a session bound.
func (h *httpHandler) refuseSession(w http.ResponseWriter, refused string) {
	w.Header().Set("Retry-After", "60")
	if refused == clientSessionsFull {
		http.Error(w, fmt.Sprintf("Too Many Requests: this client holds %d legacy sessions, the most one client may: "+
			"close one (DELETE /mcp with its Mcp-Session-Id) or let idle ones expire, or use protocol 2026-07-28 (no sessions)",
			h.cfg.maxSessionsPerClient), http.StatusTooManyRequests)
		return
	}
	http.Error(w, "Service Unavailable: too many sessions; retry later, or use protocol 2026-07-28 (no sessions)", http.StatusServiceUnavailable)
}

// admit runs what comes before MCP: rate limit, Host and Origin, CORS
// preflight, authentication, body limit. When it has answered (a refusal,
// audited, or a preflight) it says so; else it returns the request's
// context, carrying the client address and principal, and a peek at the
// body.
//
// The rate limit counts the client once it is known: an authenticated
// request against its principal (however many addresses it comes
// from, and apart from other tokens behind the same address), a request
// that fails authentication against its address, so that guessing tokens
// is limited too.
func (h *httpHandler) admit(w http.ResponseWriter, r *http.Request, start time.Time) (context.Context, peek, bool) {
	ctx := context.WithValue(r.Context(), clientAddrKey{}, h.clientAddr(r).String())
	if reason := h.guard.check(r); reason != "" {
		h.forbid(w, reason)
		h.deny(ctx, r, start, reason, http.StatusForbidden)
		return ctx, peek{}, true
	}
	if h.guard.cors(w, r) {
		return ctx, peek{}, true // a preflight
	}
	if h.auth != nil {
		p, aerr := h.auth.authenticate(r)
		if aerr != nil {
			if h.limitedNow(ctx, w, r, start) {
				return ctx, peek{}, true
			}
			h.refuseAuth(w, aerr)
			h.deny(ctx, r, start, cmp.Or(aerr.code, "unauthenticated"), aerr.status)
			return ctx, peek{}, true
		}
		ctx = context.WithValue(ctx, principalCtxKey{}, p)
	}
	if h.limitedNow(ctx, w, r, start) {
		return ctx, peek{}, true
	}
	pk, status := h.readBody(w, r)
	if status != 0 {
		h.deny(ctx, r, start, "body", status)
		return ctx, peek{}, true
	}
	if !h.cfg.oneClient {
		ctx = context.WithValue(ctx, clientKeyKey{}, h.clientKey(ctx, r))
	}
	return ctx, pk, false
}

// forbid answers a request whose Host or Origin (reason) the guard refused.
func (h *httpHandler) forbid(w http.ResponseWriter, reason string) {
	http.Error(w, "Forbidden: "+reason+" not allowed: add it to the allowed "+reason+"s of the server", http.StatusForbidden)
}

// limitedNow takes a token of the client of r and, when there is none,
// answers 429 and says so.
func (h *httpHandler) limitedNow(ctx context.Context, w http.ResponseWriter, r *http.Request, start time.Time) bool {
	ok, wait := h.allow(ctx, r)
	if !ok {
		rateLimited(w, wait)
		h.deny(ctx, r, start, "rate_limited", http.StatusTooManyRequests)
	}
	return !ok
}

// deny writes the audit line of a request refused before MCP.
func (h *httpHandler) deny(ctx context.Context, r *http.Request, start time.Time, reason string, status int) {
	who := "anonymous@" + ctx.Value(clientAddrKey{}).(string)
	if p, ok := ctx.Value(principalCtxKey{}).(*principal); ok {
		who = p.key
	}
	h.s.audit(ctx, auditEvent{who: who, method: r.Method + " " + r.URL.Path,
		decision: decisionDeny, reason: reason, status: status, duration: time.Since(start)})
}

// refuseAuth answers a refused authentication; an error behind it (the
// issuer's keys unreachable) goes to the log, not to the client.
func (h *httpHandler) refuseAuth(w http.ResponseWriter, e *authError) {
	if e.cause != nil {
		h.s.log.Error("cannot verify bearer tokens", "error", e.cause)
	}
	h.auth.challenge(w, e)
}

// peek is what routing needs from a POST body.
type peek struct {
	method       string      // "" for a batch
	modern       bool        // the request carries a 2026-07-28 (or later) _meta protocol version
	notification bool        // a notification (no id)
	id           *jsonrpc.ID // a call's id
	cancels      *jsonrpc.ID // the request a notifications/cancelled names
}

// readBody reads a POST body within the size limit, checks its JSON-RPC
// envelope (envelope.go) and hands go-sdk the checked messages, re-encoded.
// On a refusal it has answered and returns the status: a malformed message
// gets 400 with its JSON-RPC error, as on stdio.
func (h *httpHandler) readBody(w http.ResponseWriter, r *http.Request) (peek, int) {
	if r.Method != http.MethodPost || r.Body == nil {
		return peek{}, 0
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(h.cfg.bodyTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.cfg.maxBody))
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			http.Error(w, "request body exceeds "+strconv.FormatInt(mbe.Limit, 10)+" bytes", http.StatusRequestEntityTooLarge)
			return peek{}, http.StatusRequestEntityTooLarge
		}
		http.Error(w, "failed to read the request body", http.StatusBadRequest)
		return peek{}, http.StatusBadRequest
	}
	body, pk, refused := h.checkBody(r, body)
	if refused != nil {
		h.s.log.Debug("message refused", "reason", clip(string(refused)))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(refused)
		return peek{}, http.StatusBadRequest
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return pk, 0
}

// checkBody checks a POST body: it returns the body go-sdk gets and what
// routing needs, or the JSON-RPC answer of a refused body.
func (h *httpHandler) checkBody(r *http.Request, body []byte) ([]byte, peek, []byte) {
	msgs, isBatch, whole := decodeFrame(body)
	switch {
	case whole != nil:
		return nil, peek{}, refusal(nil, whole)
	case !isBatch && msgs[0].refusal != nil:
		return nil, peek{}, refusal(msgs[0].id, msgs[0].refusal)
	case !isBatch:
		b, err := jsonrpc.EncodeMessage(msgs[0].msg)
		if err != nil {
			return nil, peek{}, refusal(msgs[0].id, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: the message cannot be encoded"})
		}
		return b, peekOf(msgs[0]), nil
	case !batchesAllowed(h.batchRevision(r)):
		return nil, peek{}, refusal(nil, errNoBatch)
	}
	if reason := checkBatch(msgs); reason != "" {
		answers := batchRefusals(msgs, reason)
		if len(answers) == 0 {
			return nil, peek{}, refusal(nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: the batch is refused: " + reason})
		}
		b, _ := json.Marshal(answers)
		return nil, peek{}, b
	}
	out := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		b, err := jsonrpc.EncodeMessage(m.msg)
		if err != nil {
			return nil, peek{}, refusal(nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: a message cannot be encoded"})
		}
		out[i] = b
	}
	b, _ := json.Marshal(out)
	return b, peek{}, nil
}

// peekOf is what routing needs from a single message.
func peekOf(m inbound) peek {
	pk := peek{method: m.method, modern: m.stateless}
	req, ok := m.msg.(*jsonrpc.Request)
	switch {
	case !ok:
	case req.IsCall():
		id := req.ID
		pk.id = &id
	default:
		pk.notification = true
		if id, ok := cancelledID(req.Params); ok && req.Method == notifyCancelled {
			pk.cancels = &id
		}
	}
	return pk
}

// batchRevision is the revision a batch is sent under: the
// MCP-Protocol-Version header, else the revision its session negotiated,
// else 2025-03-26 (as the transport specifies for a request without the
// header). A header naming a batching revision on a session that
// negotiated a later one does not make batches allowed.
func (h *httpHandler) batchRevision(r *http.Request) revision {
	rev := revision(r.Header.Get(headerProtocolVersion))
	if id := r.Header.Get(headerSessionID); id != "" {
		for ss := range h.s.mcp.Sessions() {
			if ss.ID() != id {
				continue
			}
			if p := ss.InitializeParams(); p != nil {
				if n := negotiate(p.ProtocolVersion); rev == "" || n > rev {
					rev = n
				}
			}
		}
	}
	if rev == "" {
		rev = rev20250326
	}
	return rev
}

// route picks the go-sdk handler of a request's era. 2026-07-28 requests
// (by header or _meta) are stateless, whatever Mcp-Session-Id they carry;
// legacy requests with a session, and legacy initialize (which creates
// one), are stateful; the rest (a legacy request without a session, a GET
// without a session: 405) are stateless.
func (h *httpHandler) route(r *http.Request, pk peek) (next http.Handler, stateful bool) {
	switch {
	case revision(r.Header.Get(headerProtocolVersion)).stateless(), pk.modern:
		return h.stateless, false
	case r.Header.Get(headerSessionID) != "", pk.method == "initialize":
		return h.stateful, true
	}
	return h.stateless, false
}

// clientAddr is the client of r: the peer of the connection, or, when the
// peer is a trusted proxy, the last X-Forwarded-For address that is not.
func (h *httpHandler) clientAddr(r *http.Request) netip.Addr {
	peer := peerAddr(r.RemoteAddr)
	if !h.trusts(peer) {
		return peer
	}
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return client // a malformed hop: believe nothing before it
		}
		client = a.Unmap().WithZone("")
		if !h.trusts(client) {
			return client
		}
	}
	return client
}

func (h *httpHandler) trusts(a netip.Addr) bool {
	for _, p := range h.cfg.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
