package server

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// WithRules sets the access rules (acl.go). Defaults to none: every
// client sees what the providers expose. SetProvidersAndRules replaces
// them on a running server.
func (c Config) WithRules(r Rules) Config {
	c.rules = r
	return c
}

// SetProvidersAndRules is SetProviders with new access rules: providers
// and rules are swapped together, atomically, so no request sees new
// providers under old rules or the reverse. Open sessions see the new
// rules from their next request on; change notifications are checked
// against the rules current when they are sent.
func (s *Server) SetProvidersAndRules(r Rules, ps ...Provider) (<-chan struct{}, error) {
	return s.swap(&r, ps)
}

// Rules returns the access rules in force.
func (s *Server) Rules() Rules {
	set := s.acquire()
	defer set.release()
	return set.rules
}

// hearers remembers who opened each session that subscribed or listens,
// so that a change notification is sent only to sessions whose client may
// see the resource under the rules in force when it is sent. An entry
// lives as long as its session: it is keyed weakly and dropped when the
// session is collected.
type hearers struct {
	mu  sync.Mutex
	who map[weak.Pointer[mcp.ServerSession]]hearer
}

type hearer struct {
	who Who
	key string // principalKey
}

// remember records the client of ctx as the one of session ss.
func (s *Server) remember(ctx context.Context, ss *mcp.ServerSession) {
	if ss == nil {
		return
	}
	h := &s.hearers
	wp := weak.Make(ss)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.who == nil {
		h.who = map[weak.Pointer[mcp.ServerSession]]hearer{}
	}
	if _, ok := h.who[wp]; !ok {
		runtime.AddCleanup(ss, func(wp weak.Pointer[mcp.ServerSession]) {
			h.mu.Lock()
			defer h.mu.Unlock()
			delete(h.who, wp)
		}, wp)
	}
	h.who[wp] = hearer{who: whoFrom(ctx), key: principalKey(ctx)}
}

// hearerOf returns the client of ss, if remembered.
func (s *Server) hearerOf(ss *mcp.ServerSession) (hearer, bool) {
	s.hearers.mu.Lock()
	defer s.hearers.mu.Unlock()
	h, ok := s.hearers.who[weak.Make(ss)]
	return h, ok
}

// screen drops, when access rules are on, the resource-updated
// notifications of out whose session's client may not see the resource
// under the rules in force now (a reload may have changed them since it
// subscribed). A session whose client is unknown hears nothing about
// resources (deny by default).
func (s *Server) screen(out []*outgoing) []*outgoing {
	set := s.acquire()
	defer set.release()
	if !set.rules.On() {
		return out
	}
	views := map[*mcp.ServerSession]*providerSet{}
	kept := out[:0]
	for _, o := range out {
		if o.method != notifyResourceUpdated {
			kept = append(kept, o)
			continue
		}
		v, ok := views[o.ss]
		if !ok {
			if h, known := s.hearerOf(o.ss); known {
				v = set.viewFor(h.who, h.key)
			}
			views[o.ss] = v
		}
		if v != nil && v.sees(o.uri) {
			kept = append(kept, o)
		}
	}
	return kept
}

// sees reports whether a read of raw through the view ps would reach a
// provider: the check of route and subscribe.
func (ps *providerSet) sees(raw string) bool {
	norm, u, err := checkURI(raw)
	if err != nil {
		return false
	}
	m := ps.owner(u)
	return m != nil && m.allows(norm)
}

// Denials is what an Observer may implement besides to count requests
// that access rules refused, by provider and method (never by client:
// the label set must stay bounded).
type Denials interface {
	Denied(provider, method string)
}

// ruleNoneMatched is the rule an audit line names when no rule let the
// client through: access is denied by default.
const ruleNoneMatched = "(default deny)"

// accessOf decides, for the audit and the metrics, what the rules said
// about a request naming uri (a resource, or a template for completion;
// "" for a listing): the rule that let it through, the rules that shaped
// the listing, or ruleNoneMatched; and the provider a denial refused, ""
// for none. It says nothing ("", "") when access control is off.
func (s *Server) accessOf(ctx context.Context, method, uri string) (rule, denied string) {
	set := s.acquire()
	defer set.release()
	if !set.rules.On() {
		return "", ""
	}
	w := whoFrom(ctx)
	if uri == "" {
		var names []string
		for _, i := range set.rules.matching(w) {
			names = append(names, set.rules.rules[i].name)
		}
		if len(names) == 0 {
			return ruleNoneMatched, ""
		}
		return strings.Join(names, ","), ""
	}
	norm, u, err := checkURI(uri)
	m := set.templateOwner(uri)
	if err == nil && m == nil {
		m = set.owner(u)
	}
	if m == nil {
		return "", "" // no provider's: not a decision of the rules
	}
	template := method == "completion/complete" || strings.Contains(uri, "{")
	for _, r := range set.rules.rules {
		if !r.covers(m.name) || !r.matches(w) {
			continue
		}
		if template && r.filter.allowsTemplate(uri) || !template && err == nil && r.filter.Allows(norm) {
			return r.name, ""
		}
	}
	return ruleNoneMatched, m.name
}

// countDenial tells the observer, if it counts denials, about a request
// the rules refused.
func (s *Server) countDenial(ctx context.Context, method string, req mcp.Request, res mcp.Result) {
	d, ok := s.cfg.observer.(Denials)
	if !ok {
		return
	}
	uri := uriOf(req)
	if t, ok := res.(*callToolResult); ok && t.outcome != nil {
		uri = t.outcome.uri
	}
	if uri == "" {
		return
	}
	if _, provider := s.accessOf(ctx, method, uri); provider != "" {
		d.Denied(provider, observedMethod(method))
	}
}

// listMarker starts the key a provider's list change travels under
// through the notifier: no subscription key holds a NUL (checkURI refuses
// control characters), so it never reaches a subscriber as an update.
const listMarker = "\x00list\x00"

// ProviderListChanged tells the clients that may see the named provider's
// resources that its list changed; with no access rules, it is
// ResourceListChanged. A client no rule grants the provider hears nothing
// about it. Coalesced with other changes like ResourcesUpdated.
func (s *Server) ProviderListChanged(provider string) {
	s.lists.changed(provider)
	set := s.acquire()
	on := set.rules.On()
	set.release()
	if !on {
		s.ResourceListChanged()
		return
	}
	if keys := []string{listMarker + provider}; !s.publishChanges(keys, false) { // bus.go: every replica's clients
		s.notify.add(keys, false)
	}
}

// splitListMarkers separates the providers whose list changed from the
// changed resources' keys.
func splitListMarkers(keys []string) (rest, providers []string) {
	for _, k := range keys {
		if p, ok := strings.CutPrefix(k, listMarker); ok {
			providers = append(providers, p)
		} else {
			rest = append(rest, k)
		}
	}
	return rest, providers
}

// scopedListChanges are the list-changed notifications of a flush in
// which providers' lists changed: to each initialized session of a
// handshake revision and each listen that asked, whose client may see one
// of the providers under the rules in force. None when the flush already
// tells every session (all).
func (s *Server) scopedListChanges(providers []string, all bool) []*outgoing {
	if all || len(providers) == 0 {
		return nil
	}
	candidates := s.subs.targets(nil, true)
	for ss := range s.mcp.Sessions() {
		if p := ss.InitializeParams(); p != nil && !revision(p.ProtocolVersion).stateless() {
			candidates = append(candidates, &outgoing{ss: ss, method: notifyListChanged})
		}
	}
	set := s.acquire()
	defer set.release()
	var out []*outgoing
	for _, o := range candidates {
		h, known := s.hearerOf(o.ss)
		if !known {
			continue // deny by default
		}
		v := set
		if set.rules.On() {
			v = set.viewFor(h.who, h.key)
		}
		if slices.ContainsFunc(providers, func(p string) bool { return v.named(p) != nil }) {
			out = append(out, o)
		}
	}
	return out
}
