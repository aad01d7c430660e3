package server

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// listenBook holds the open 2026-07-28 listens over HTTP by client and
// request id, so that a notifications/cancelled POSTed for one ends it.
// On 2026-07-28 every POST is a request of its own (no session carries
// the cancel to the listen), so go-sdk alone would accept the cancel
// (202) and leave the listen open. The client is the one rate limits and
// shares count (clientKey: the token's subject, else the address): a
// client cannot cancel another's listen by guessing its id.
type listenBook struct {
	mu   sync.Mutex
	open map[listenKey]map[*context.CancelFunc]struct{}
}

type listenKey struct {
	client string
	id     jsonrpc.ID
}

func newListenBook() *listenBook {
	return &listenBook{open: map[listenKey]map[*context.CancelFunc]struct{}{}}
}

// add records an open listen; the returned func forgets it.
func (b *listenBook) add(client string, id jsonrpc.ID, end context.CancelFunc) (forget func()) {
	k, p := listenKey{client, id}, &end
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open[k] == nil {
		b.open[k] = map[*context.CancelFunc]struct{}{}
	}
	b.open[k][p] = struct{}{}
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.open[k], p)
		if len(b.open[k]) == 0 {
			delete(b.open, k)
		}
	}
}

// cancel ends the listens of client with request id id (a client that
// reused an id ends every listen that carries it) and reports how many.
func (b *listenBook) cancel(client string, id jsonrpc.ID) int {
	b.mu.Lock()
	ends := b.open[listenKey{client, id}]
	delete(b.open, listenKey{client, id})
	b.mu.Unlock()
	for end := range ends {
		(*end)()
	}
	return len(ends)
}

// cancelListen ends the listens of the client of r with request id id,
// for a notifications/cancelled whose Mcp-Method header, if any, matches
// its body (go-sdk refuses one that does not).
func (h *httpHandler) cancelListen(ctx context.Context, r *http.Request, id jsonrpc.ID) {
	if m := r.Header.Get(headerMethod); m != "" && m != notifyCancelled {
		return
	}
	if n := h.listens.cancel(h.clientKey(ctx, r), id); n > 0 {
		h.s.log.Debug("listen cancelled by its client", "listens", n)
	}
}

// cancelledID returns the requestId of a notifications/cancelled message,
// if it is a valid JSON-RPC id.
func cancelledID(params json.RawMessage) (jsonrpc.ID, bool) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	return id, err == nil
}

// notificationMethodHeader gives a 2026-07-28 notification without an
// Mcp-Method header the header of its body: the revision requires the
// header of requests (go-sdk checks it, and refuses with 400 a message
// without one), and a client sends none on a notification such as
// notifications/cancelled, which the core defines no header for.
func notificationMethodHeader(r *http.Request, pk peek) {
	if pk.notification && pk.method != "" && r.Header.Get(headerMethod) == "" {
		r.Header.Set(headerMethod, pk.method)
	}
}
