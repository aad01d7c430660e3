package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bus is what the replicas of a fleet share (internal/bus implements it on
// Redis): an event channel every replica hears, claims that only one
// replica wins, and the legacy subscriptions of sealed sessions. Every
// method may fail when the bus is down; the server then serves reads and
// lists as before and delivers the changes it sees itself to the clients
// whose streams it holds.
type Bus interface {
	// Publish sends ev to every replica, this one included.
	Publish(ctx context.Context, ev BusEvent) error
	// Claim reports whether this replica is the first to claim key in
	// the last ttl.
	Claim(ctx context.Context, key string, ttl time.Duration) (bool, error)
	// Claimed reports whether key is claimed now.
	Claimed(ctx context.Context, key string) (bool, error)
	// PutSubscription records that session subscribed to uri (key is its
	// subscription key), for ttl; DeleteSubscription forgets it.
	PutSubscription(ctx context.Context, session, key, uri string, ttl time.Duration) error
	DeleteSubscription(ctx context.Context, session, key string) error
	// Subscriptions returns a session's subscriptions, uri by key.
	Subscriptions(ctx context.Context, session string) (map[string]string, error)
	// Run hands every event published by any replica to handle until ctx
	// is done, reconnecting while the bus is down.
	Run(ctx context.Context, handle func(BusEvent))
}

// BusEvent is one message between replicas. Sessions are named by their
// fleet id (a digest of the sealed session id), never by the id itself.
type BusEvent struct {
	Kind    string   `json:"k"`           // one of the bus* kinds
	Keys    []string `json:"u,omitempty"` // busUpdated: subscription keys
	Session string   `json:"s,omitempty"` // busSub, busUnsub, busClosed
	Key     string   `json:"y,omitempty"` // busSub, busUnsub
	URI     string   `json:"r,omitempty"` // busSub: the URI as the client sent it
}

// Kinds of bus events.
const (
	busUpdated = "updated" // resources changed
	busList    = "list"    // the resource list changed
	busSub     = "sub"     // a session subscribed
	busUnsub   = "unsub"   // a session unsubscribed
	busClosed  = "closed"  // a session was closed with DELETE
)

// Bounds of bus calls: the bus is never waited on for longer.
const (
	busTimeout = 2 * time.Second
	// DefaultChangeWindow is how long a change claimed by one replica
	// keeps the others from announcing the same change (the same resource,
	// or a list change): replicas that watch one source see its changes
	// within a few of the change feeds' polls (a second each) of one
	// another.
	DefaultChangeWindow = 3 * time.Second
)

// fleet is a server's share of a fleet: sealed session ids, the copies of
// fleet sessions it holds, and the bus (nil without one).
type fleet struct {
	seal   *sealer
	bus    Bus
	window time.Duration

	mu      sync.Mutex
	local   map[string]string        // fleet id -> local session id
	fids    map[string]string        // local session id -> fleet id
	clients map[string]string        // local session id -> client key
	streams map[string]int           // local session id -> GET streams open here
	closed  map[string]int64         // fleet id -> expiry of a DELETEd session
	busy    map[string]chan struct{} // fleet id -> closed when its adoption ends
}

func newFleet(seal *sealer, bus Bus, window time.Duration) *fleet {
	return &fleet{seal: seal, bus: bus, window: window, local: map[string]string{}, fids: map[string]string{},
		clients: map[string]string{}, streams: map[string]int{}, closed: map[string]int64{}, busy: map[string]chan struct{}{}}
}

// adopting starts the adoption of fleet session fid (first) or returns the
// channel closed when the adoption under way ends.
func (f *fleet) adopting(fid string) (end <-chan struct{}, first bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ch, ok := f.busy[fid]; ok {
		return ch, false
	}
	ch := make(chan struct{})
	f.busy[fid] = ch
	return ch, true
}

// adopted ends the adoption of fid that adopting started.
func (f *fleet) adopted(fid string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	close(f.busy[fid])
	delete(f.busy, fid)
}

// fleetID names a sealed session on the bus and in the log.
func fleetID(sealedID string) string {
	d := sha256.Sum256([]byte(sealedID))
	return hex.EncodeToString(d[:12])
}

// bind records that local session id serves fleet session fid for client.
func (f *fleet) bind(fid, id, client string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.local[fid], f.fids[id], f.clients[id] = id, fid, client
}

// localOf returns the local session of fid, "" for none.
func (f *fleet) localOf(fid string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.local[fid]
}

// forget drops the local sessions that ended (live are those open now).
func (f *fleet) forget(live map[string]bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id, fid := range f.fids {
		if !live[id] {
			delete(f.fids, id)
			delete(f.clients, id)
			delete(f.local, fid)
		}
	}
	now := time.Now().Unix()
	for fid, exp := range f.closed {
		if exp <= now {
			delete(f.closed, fid)
		}
	}
}

// maxClosed bounds the closed sessions a replica remembers itself; past
// it one is forgotten here, which the bus still remembers (a fleet
// without a bus may then adopt that one again, until it expires).
const maxClosed = 1 << 16

// remember records that fleet session fid was closed, until its id would
// have expired.
func (f *fleet) remember(fid string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.closed) >= maxClosed {
		for k := range f.closed { // any one: the bus has them all
			delete(f.closed, k)
			break
		}
	}
	f.closed[fid] = time.Now().Add(f.seal.lifetime).Unix()
}

// bound is how many local sessions are bound to fleet sessions.
func (f *fleet) bound() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.fids)
}

// streaming reports whether a local session of a fleet session has its
// GET stream here; sessions of no fleet always deliver.
func (f *fleet) streaming(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.fids[id]; !ok {
		return true
	}
	return f.streams[id] > 0
}

// stream counts a GET stream of local session id open here until the
// returned function is called.
func (f *fleet) stream(id string) func() {
	f.mu.Lock()
	f.streams[id]++
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.streams[id]--; f.streams[id] <= 0 {
			delete(f.streams, id)
		}
	}
}

// delivering drops the notifications of fleet sessions whose GET stream
// another replica holds: that replica sends them, exactly once.
func (s *Server) delivering(out []*outgoing) []*outgoing {
	if s.fleet == nil {
		return out
	}
	kept := out[:0]
	for _, o := range out {
		if o.id != nil || s.fleet.streaming(o.ss.ID()) { // a listen's stream is its own request
			kept = append(kept, o)
		}
	}
	return kept
}

// busy reports whether the server has a bus to publish changes on.
func (s *Server) busy() bool { return s.fleet != nil && s.fleet.bus != nil }

// publishChanges announces changes (subscription keys, or a list change)
// to the fleet: each change once, whichever replicas saw it, claimed for
// the change window. It reports false when the bus cannot take them: the
// caller then delivers them here.
func (s *Server) publishChanges(keys []string, listChanged bool) bool {
	if !s.busy() {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), busTimeout)
	defer cancel()
	bus, window := s.fleet.bus, s.fleet.window
	var won []string
	for _, k := range keys {
		ok, err := bus.Claim(ctx, "chg:u:"+k, window)
		if err != nil {
			s.busDown(err)
			return false
		}
		if ok {
			won = append(won, k)
		}
	}
	if len(won) > 0 {
		if err := bus.Publish(ctx, BusEvent{Kind: busUpdated, Keys: won}); err != nil {
			s.busDown(err)
			return false
		}
	}
	if listChanged {
		ok, err := bus.Claim(ctx, "chg:l", window)
		if err == nil && ok {
			err = bus.Publish(ctx, BusEvent{Kind: busList})
		}
		if err != nil {
			s.busDown(err)
			return false
		}
	}
	return true
}

func (s *Server) busDown(err error) {
	s.log.Warn("bus unavailable: changes go to the clients whose streams this replica holds", "error", err)
}

// onBusEvent applies an event of any replica here.
func (s *Server) onBusEvent(ev BusEvent) {
	switch ev.Kind {
	case busUpdated:
		var keys []string
		for _, k := range ev.Keys {
			if p, ok := strings.CutPrefix(k, listMarker); ok { // a provider's list change under access rules (aclserve.go)
				s.lists.changed(p)
				keys = append(keys, k)
			} else if s.subs.subscribed(k) {
				keys = append(keys, k)
			}
		}
		s.notify.add(keys, false)
	case busList:
		// A client told of a list change by any replica lists again, maybe
		// here: this replica's pages go too, before its own feed notices
		// (listcache.go).
		s.lists.changedAll()
		s.notify.add(nil, true)
	case busSub, busUnsub:
		ss, client := s.fleetSession(ev.Session)
		if ss == nil || ev.Key == "" {
			return
		}
		if ev.Kind == busSub {
			_ = s.subs.add(ss, client, ev.URI, ev.Key, false) // a bound reached here: the subscribing replica answered
		} else {
			s.subs.remove(ss, ev.URI, false)
		}
	case busClosed:
		s.fleet.remember(ev.Session)
		if ss, _ := s.fleetSession(ev.Session); ss != nil {
			_ = ss.Close()
		}
	}
}

// fleetSession returns the local session serving fleet session fid, and
// its client, or nil.
func (s *Server) fleetSession(fid string) (*mcp.ServerSession, string) {
	if s.fleet == nil {
		return nil, ""
	}
	s.fleet.mu.Lock()
	id := s.fleet.local[fid]
	client := s.fleet.clients[id]
	s.fleet.mu.Unlock()
	if id == "" {
		return nil, ""
	}
	for ss := range s.mcp.Sessions() {
		if ss.ID() == id {
			return ss, client
		}
	}
	return nil, ""
}

// fleetSubscribed shares a legacy subscribe (or, with !on, unsubscribe)
// of a fleet session with the other replicas: the one holding the
// session's stream delivers its notifications.
func (s *Server) fleetSubscribed(ss *mcp.ServerSession, uri string, on bool) {
	if !s.busy() || ss == nil {
		return
	}
	s.fleet.mu.Lock()
	fid := s.fleet.fids[ss.ID()]
	s.fleet.mu.Unlock()
	if fid == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), busTimeout)
	defer cancel()
	key, ev := subscriptionKeyOf(uri), BusEvent{Kind: busUnsub, Session: fid, URI: uri}
	ev.Key = key
	var err error
	if on {
		ev.Kind = busSub
		err = s.fleet.bus.PutSubscription(ctx, fid, key, uri, s.fleet.seal.lifetime)
	} else {
		err = s.fleet.bus.DeleteSubscription(ctx, fid, key)
	}
	if err == nil {
		err = s.fleet.bus.Publish(ctx, ev)
	}
	if err != nil {
		s.busDown(err)
	}
}

// runBus hands the bus's events to the server until ctx is done.
func (s *Server) runBus(ctx context.Context) (wait func()) {
	if !s.busy() {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.fleet.bus.Run(ctx, s.onBusEvent)
	}()
	return func() { <-done }
}
