package server

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ResourcesUpdated tells the clients subscribed to any of uris that its
// contents changed; provider names the provider that reported it. A URI
// that provider does not own, or that a read would refuse, is dropped and
// logged: a provider can only speak for its own uri space. Notifications go
// out after the notify delay (DefaultNotifyDelay), coalesced: a resource
// reported many times within the delay, or under several spellings of its
// URI, is announced once to each session that subscribed to it (under the
// URI as that session first sent it), and to no other. It never blocks on
// clients and is safe for concurrent use.
func (s *Server) ResourcesUpdated(provider string, uris ...string) {
	s.lists.changed(provider) // a listed item may have changed (its size)
	set := s.acquire()
	m := set.named(provider)
	set.release()
	if m == nil {
		s.log.Debug("changes dropped: no such provider", "provider", clip(provider))
		return
	}
	var pending []string
	refused := 0
	for _, raw := range uris {
		norm, u, err := checkURI(raw)
		if err != nil || !m.space.Owns(u) {
			refused++ // provider text: counted, not logged
			continue
		}
		if key := subscriptionKey(norm); m.allows(norm) && (s.busy() || s.subs.subscribed(key)) {
			pending = append(pending, key)
		}
	}
	if refused > 0 {
		m.log.Warn("changed uris refused: not valid uris of the provider's uri space", "refused", refused, "of", len(uris))
	}
	if len(pending) > 0 && !s.publishChanges(pending, false) { // bus.go
		s.notify.add(pending, false)
	}
}

// ResourceListChanged tells clients that the set of resources changed:
// sessions of the handshake revisions get notifications/resources/list_changed,
// and 2026-07-28 listens that asked for resourcesListChanged get it on their
// stream. Coalesced with other changes like ResourcesUpdated.
func (s *Server) ResourceListChanged() {
	s.lists.changedAll()
	if !s.publishChanges(nil, true) { // bus.go
		s.notify.add(nil, true)
	}
}

// Interested reports whether a change would reach any client now: a
// subscription, a listen for list changes, or an initialized session of a
// handshake revision (which hears list changes without asking). Change
// feeds may poll providers only while it is true. The list cache counts
// as a listener while it holds pages kept until a change (listcache.go).
func (s *Server) Interested() bool {
	if s.subs.active() || s.lists.active() || s.busy() { // with a bus, clients of other replicas may be
		return true
	}
	for ss := range s.mcp.Sessions() {
		if p := ss.InitializeParams(); p != nil && !revision(p.ProtocolVersion).stateless() {
			return true
		}
	}
	return false
}

// named returns the provider called name, or nil.
func (ps *providerSet) named(name string) *backend {
	i, ok := slices.BinarySearchFunc(ps.backends, name, func(m *backend, name string) int { return cmp.Compare(m.name, name) })
	if !ok {
		return nil
	}
	return ps.backends[i]
}

// deliver queues one flush of changes (keys are subscription keys): each
// changed resource to the sessions that subscribed to it with
// resources/subscribe and to the listens acknowledged for it, and a list
// change to every initialized session of a handshake revision and to the
// listens acknowledged for list changes. Notifications on a listen carry
// its subscription id. Each session's notifications go out on its own
// sender (outbox.go): deliver never waits for a client.
func (s *Server) deliver(keys []string, listChanged bool) {
	keys, scoped := splitListMarkers(keys) // aclserve.go
	out := s.screen(s.subs.targets(keys, listChanged))
	if listChanged {
		for ss := range s.mcp.Sessions() {
			if p := ss.InitializeParams(); p != nil && !revision(p.ProtocolVersion).stateless() {
				out = append(out, &outgoing{ss: ss, method: notifyListChanged})
			}
		}
	}
	out = append(out, s.scopedListChanges(scoped, listChanged)...)
	s.out.put(s.delivering(out)) // bus.go
}

// sendTimeout bounds the sending of one notification to a slow client,
// besides the transport's write deadline.
const sendTimeout = 10 * time.Second

// targets lists the notifications a flush sends through listens and
// legacy subscriptions: one per session or listen and resource, under the
// spelling it used first.
func (s *subscriptions) targets(keys []string, listChanged bool) []*outgoing {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*outgoing
	for _, key := range keys {
		for ss := range s.index[key] {
			st := s.sessions[ss]
			if sub := st.subs[key]; sub.legacy {
				out = append(out, &outgoing{ss: ss, method: notifyResourceUpdated, uri: sub.uri})
			}
			for id, l := range st.listens {
				if uri, ok := l.uris[key]; ok {
					out = append(out, &outgoing{ss: ss, method: notifyResourceUpdated, uri: uri, id: id})
				}
			}
		}
	}
	if listChanged {
		for ss, st := range s.sessions {
			for id, l := range st.listens {
				if l.listChanged {
					out = append(out, &outgoing{ss: ss, method: notifyListChanged, id: id})
				}
			}
		}
	}
	return out
}

// outgoing is one change notification to one session, tagged with a
// listen's subscription id when it belongs to a listen.
type outgoing struct {
	ss     *mcp.ServerSession
	method string // notifyResourceUpdated or notifyListChanged
	uri    string
	id     any
}

// request is the notification as go-sdk sends it.
func (o *outgoing) request() mcp.Request {
	var meta mcp.Meta
	if o.id != nil {
		meta = mcp.Meta{mcp.MetaKeySubscriptionID: o.id}
	}
	if o.method == notifyListChanged {
		return &mcp.ServerRequest[*mcp.ResourceListChangedParams]{Session: o.ss, Params: &mcp.ResourceListChangedParams{Meta: meta}}
	}
	return &mcp.ServerRequest[*mcp.ResourceUpdatedNotificationParams]{Session: o.ss,
		Params: &mcp.ResourceUpdatedNotificationParams{Meta: meta, URI: o.uri}}
}

// notifier collects changes and flushes them once per delay: the first
// change arms a timer, later ones join the pending set, and the flush sends
// each pending URI once. Pending URIs are only those someone subscribed
// to, so the set is bounded by the subscriptions.
type notifier struct {
	delay time.Duration
	send  func(uris []string, listChanged bool)

	mu    sync.Mutex
	uris  map[string]bool
	list  bool
	armed bool

	flushMu sync.Mutex // flushes run one at a time, in order
}

func newNotifier(delay time.Duration, send func([]string, bool)) *notifier {
	return &notifier{delay: delay, send: send, uris: map[string]bool{}}
}

// add records changes and arms the flush timer if it is not armed.
func (n *notifier) add(uris []string, listChanged bool) {
	if len(uris) == 0 && !listChanged {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, u := range uris {
		n.uris[u] = true
	}
	n.list = n.list || listChanged
	if !n.armed {
		n.armed = true
		time.AfterFunc(n.delay, n.flush)
	}
}

// flush hands what is pending to send. When it returns, every change
// added before it was called has been handed over.
func (n *notifier) flush() {
	n.flushMu.Lock()
	defer n.flushMu.Unlock()
	n.mu.Lock()
	uris, list := n.uris, n.list
	n.uris, n.list, n.armed = map[string]bool{}, false, false
	n.mu.Unlock()
	if len(uris) == 0 && !list {
		return
	}
	sorted := make([]string, 0, len(uris))
	for u := range uris {
		sorted = append(sorted, u)
	}
	slices.Sort(sorted)
	n.send(sorted, list)
}
