package server

import (
	"fmt"
	"sync"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// providerSet is one generation of providers: the backends requests are routed
// to and the list cache hint derived from them. A request runs on the set
// it acquired at its start, to its end, whatever SetProviders does
// meanwhile; the set counts those requests so that the caller of
// SetProviders learns when the old providers are idle and may be closed.
type providerSet struct {
	backends  []*backend // sorted by name
	listCache abi.CacheHint
	rules     Rules        // access rules (acl.go); swapped with the providers
	parent    *providerSet // of a client's view: the set it is a view of
	who       []byte       // of a client's view: its digest, bound into cursors

	mu       sync.Mutex
	inFlight int
	retired  bool
	drained  chan struct{} // closed once retired with nothing in flight
}

func newProviderSet(backends []*backend) *providerSet {
	return &providerSet{backends: backends, listCache: listCacheHint(backends), drained: make(chan struct{})}
}

// acquire returns the current set, counted as in use until its release.
// The read lock makes "load the set, count a request in it" atomic with
// respect to a swap, so a set never gains a request after it is retired.
func (s *Server) acquire() *providerSet {
	s.setMu.RLock()
	defer s.setMu.RUnlock()
	ps := s.set
	ps.mu.Lock()
	ps.inFlight++
	ps.mu.Unlock()
	return ps
}

// release ends one request on ps.
func (ps *providerSet) release() {
	if ps.parent != nil {
		ps.parent.release()
		return
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.inFlight--
	if ps.retired && ps.inFlight == 0 {
		close(ps.drained)
	}
}

// retire marks ps as replaced and returns a channel closed once no request
// runs on it any more.
func (ps *providerSet) retire() <-chan struct{} {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.retired = true
	if ps.inFlight == 0 {
		close(ps.drained)
	}
	return ps.drained
}

// SetProviders replaces the providers served, atomically: it checks the new
// set exactly as New does (valid describe, distinct names, disjoint uri
// spaces) and, only if every check passes, makes it the set that new
// requests see. Requests already running finish on the old providers; the
// returned channel is closed when the last of them has returned, after
// which the caller may close the old providers (the server never closes a
// provider). On error nothing changes and the old set keeps serving.
//
// List cursors handed out before the swap stay valid only where they name
// a provider still at the same position; others are refused with "list
// again without a cursor". Clients are told the list changed.
func (s *Server) SetProviders(ps ...Provider) (<-chan struct{}, error) {
	return s.swap(nil, ps)
}

// swap is SetProviders with the access rules of the new set: rules, or
// the current set's when rules is nil.
func (s *Server) swap(rules *Rules, ps []Provider) (<-chan struct{}, error) {
	for i, p := range ps {
		if p == nil {
			return nil, fmt.Errorf("set providers: provider %d is nil", i)
		}
	}
	backends, err := backendsOf(ps, s.log)
	if err != nil {
		return nil, fmt.Errorf("set providers: %w", err)
	}
	next := newProviderSet(backends)
	s.setMu.Lock()
	old := s.set
	next.rules = old.rules
	if rules != nil {
		next.rules = *rules
	}
	s.set = next
	s.setMu.Unlock()
	drained := old.retire()
	s.log.Debug("providers replaced", "providers", len(backends))
	s.providersChanged()
	return drained, nil
}

// providersChanged tells clients that the resource list changed after a
// swap: list_changed to sessions of the handshake revisions,
// resourcesListChanged to 2026-07-28 listens that asked (notify.go).
func (s *Server) providersChanged() { s.ResourceListChanged() }
