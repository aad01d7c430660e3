package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The HTTP side of a fleet (bus.go, sealed.go): a legacy initialize gets a
// sealed session id; a request with a sealed id is served by this
// replica's session for it, adopted (made from the id) on first sight.

// fleetRequest prepares a legacy request of a fleet: it swaps a sealed
// session id for the local session serving it, adopting one if needed,
// or refuses the id. For an initialize it returns the hook that seals the
// id of the session go-sdk makes. done ends what it began (a GET stream
// counted here); answered says that it answered the request (a refusal).
func (h *httpHandler) fleetRequest(ctx context.Context, w http.ResponseWriter, r *http.Request, pk peek) (hook func(http.Header), done func(), answered bool) {
	f := h.s.fleet
	done = func() {}
	if f == nil || revision(r.Header.Get(headerProtocolVersion)).stateless() || pk.modern {
		return nil, done, false
	}
	if pk.method == "initialize" && r.Header.Get(headerSessionID) == "" {
		if f.bound() > 2*h.cfg.maxSessions { // sessions closed since they were bound
			f.forget(h.liveIDs())
		}
		return h.sealHook(ctx, r), done, false
	}
	id := r.Header.Get(headerSessionID)
	if !sealed(id) {
		return nil, done, false
	}
	principal := principalKeyOf(ctx)
	seal, err := f.seal.open(id, principal)
	if err != nil {
		h.refuseSealed(ctx, w, r, err)
		return nil, done, true
	}
	fid := fleetID(id)
	local, err := h.localSession(ctx, r, fid, seal)
	if err != nil {
		h.s.log.Info("session not adopted", "session", fid, "reason", err)
		w.Header().Set("Retry-After", "5")
		http.Error(w, "Service Unavailable: "+err.Error(), http.StatusServiceUnavailable)
		return nil, done, true
	}
	if local == "" {
		http.Error(w, "Not Found: session closed: initialize a new session", http.StatusNotFound)
		return nil, done, true
	}
	r.Header.Set(headerSessionID, local)
	switch r.Method {
	case http.MethodGet:
		// Event ids are this replica's: a resume from another replica's
		// stream cannot be served here, so the stream starts from now.
		r.Header.Del(headerLastEventID)
		end := f.stream(local)
		h.s.log.Info("session stream opened here", "session", fid)
		done = func() {
			end()
			h.s.log.Info("session stream closed here", "session", fid)
		}
	case http.MethodDelete:
		h.closeFleetSession(fid)
	}
	return nil, done, false
}

// principalKeyOf is the key of the authenticated principal of ctx, "" when
// anonymous.
func principalKeyOf(ctx context.Context) string {
	if p, ok := ctx.Value(principalCtxKey{}).(*principal); ok && p != nil {
		return p.key
	}
	return ""
}

// refuseSealed answers a sealed id that does not open for this request:
// 403 for another principal's, else 404, which tells a client to
// initialize a new session.
func (h *httpHandler) refuseSealed(ctx context.Context, w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusNotFound
	if errors.Is(err, errOtherPrincipal) {
		status = http.StatusForbidden
	}
	h.s.log.Info("session id refused", "reason", err, "client", ctx.Value(clientAddrKey{}))
	h.deny(ctx, r, time.Now(), "session_id", status)
	http.Error(w, http.StatusText(status)+": "+err.Error()+": initialize a new session", status)
}

// sealHook reads the initialize params of r and returns the hook that
// swaps the id go-sdk gives the new session for a sealed one.
func (h *httpHandler) sealHook(ctx context.Context, r *http.Request) func(http.Header) {
	body, _ := io.ReadAll(r.Body) // a bytes.Reader: readBody read it whole
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || len(msg.Params) == 0 {
		return nil
	}
	principal, client := principalKeyOf(ctx), clientOf(ctx)
	f := h.s.fleet
	return func(hd http.Header) {
		local := hd.Get(headerSessionID)
		if local == "" || sealed(local) {
			return
		}
		id := f.seal.seal(msg.Params, principal)
		f.bind(fleetID(id), local, client)
		hd.Set(headerSessionID, id)
	}
}

// localSession returns the local session serving fleet session fid,
// adopting it when there is none: "" when the session was closed.
func (h *httpHandler) localSession(ctx context.Context, r *http.Request, fid string, seal sessionSeal) (string, error) {
	f := h.s.fleet
	if id := f.localOf(fid); id != "" && h.open(id) {
		return id, nil
	}
	end, first := f.adopting(fid)
	if !first { // another request adopts it: wait for that one
		select {
		case <-end:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		if id := f.localOf(fid); id != "" {
			return id, nil
		}
		if h.fleetClosed(fid) {
			return "", nil
		}
		return "", errors.New("the session could not be adopted: retry")
	}
	defer f.adopted(fid)
	if h.fleetClosed(fid) {
		return "", nil
	}
	f.forget(h.liveIDs())
	return h.adopt(ctx, r, fid, seal)
}

// open reports whether local session id is open.
func (h *httpHandler) open(id string) bool {
	for ss := range h.s.mcp.Sessions() {
		if ss.ID() == id {
			return true
		}
	}
	return false
}

// liveIDs are the ids of the local sessions open now.
func (h *httpHandler) liveIDs() map[string]bool {
	live := map[string]bool{}
	for ss := range h.s.mcp.Sessions() {
		live[ss.ID()] = true
	}
	return live
}

// fleetClosed reports whether fleet session fid was closed with DELETE,
// here or, when the bus answers, anywhere.
func (h *httpHandler) fleetClosed(fid string) bool {
	f := h.s.fleet
	f.mu.Lock()
	_, closed := f.closed[fid]
	f.mu.Unlock()
	if closed || f.bus == nil {
		return closed
	}
	ctx, cancel := context.WithTimeout(context.Background(), busTimeout)
	defer cancel()
	dead, err := f.bus.Claimed(ctx, "dead:"+fid)
	if err != nil {
		h.s.busDown(err)
	}
	return dead
}

// closeFleetSession remembers that fleet session fid is closed, here and
// on the bus, so that no replica adopts it again.
func (h *httpHandler) closeFleetSession(fid string) {
	f := h.s.fleet
	f.remember(fid)
	if f.bus == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), busTimeout)
	defer cancel()
	_, err := f.bus.Claim(ctx, "dead:"+fid, f.seal.lifetime)
	if err == nil {
		err = f.bus.Publish(ctx, BusEvent{Kind: busClosed, Session: fid})
	}
	if err != nil {
		h.s.busDown(err)
	}
}

// adopt makes a local session for fleet session fid by replaying its
// initialize (and initialized) through go-sdk, as the client sent it,
// within the session bounds, and loads its subscriptions from the bus.
func (h *httpHandler) adopt(ctx context.Context, r *http.Request, fid string, seal sessionSeal) (string, error) {
	client := clientOf(ctx)
	opened, refused := h.sessions.reserve(h.clientKey(ctx, r), h.s.mcp.Sessions())
	if refused != "" {
		return "", fmt.Errorf("this replica holds too many sessions (%s): retry later", refused)
	}
	local := ""
	defer func() { opened(local) }()
	init := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":"adopt","method":"initialize","params":%s}`, seal.Init)
	rec := h.replay(ctx, r, init, "")
	if rec.Code != http.StatusOK || rec.Header().Get(headerSessionID) == "" {
		return "", fmt.Errorf("replaying the session's initialize: status %d", rec.Code)
	}
	local = rec.Header().Get(headerSessionID)
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(seal.Init, &p)
	rec = h.replay(ctx, r, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), local, negotiate(p.ProtocolVersion))
	if rec.Code/100 != 2 {
		return "", fmt.Errorf("replaying the session's initialized: status %d", rec.Code)
	}
	h.s.fleet.bind(fid, local, client)
	h.s.log.Info("session adopted", "session", fid)
	h.loadSubscriptions(fid, local, client)
	return local, nil
}

// replay sends a message of an adopted session to go-sdk's stateful
// handler, with the context (principal, client) of the request r.
func (h *httpHandler) replay(ctx context.Context, r *http.Request, body []byte, session string, rev ...revision) *httptest.ResponseRecorder {
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, MCPPath, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if a := r.Header.Get("Authorization"); a != "" {
		req.Header.Set("Authorization", a)
	}
	if session != "" {
		req.Header.Set(headerSessionID, session)
	}
	if len(rev) > 0 && rev[0] != "" {
		req.Header.Set(headerProtocolVersion, string(rev[0]))
	}
	req.RemoteAddr = r.RemoteAddr
	rec := httptest.NewRecorder()
	h.stateful.ServeHTTP(rec, req)
	return rec
}

// loadSubscriptions gives an adopted session the subscriptions its
// client made through other replicas.
func (h *httpHandler) loadSubscriptions(fid, local, client string) {
	bus := h.s.fleet.bus
	if bus == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), busTimeout)
	defer cancel()
	subs, err := bus.Subscriptions(ctx, fid)
	if err != nil {
		h.s.busDown(err)
		return
	}
	var ss *mcp.ServerSession
	for s := range h.s.mcp.Sessions() {
		if s.ID() == local {
			ss = s
		}
	}
	if ss == nil {
		return
	}
	for key, uri := range subs {
		_ = h.s.subs.add(ss, client, uri, key, false) // past a bound: as the subscribing replica answered
	}
}
