package server

import (
	"iter"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionReaper closes legacy sessions idle for longer than the idle
// timeout. Unlike go-sdk's own timer, which only POSTs reset, a request in
// progress (an open GET stream included) counts as activity: a client that
// waits for notifications is not idle. Sweeps run on the requests
// themselves, at most every sweepEvery, so the reaper owns no goroutine.
type sessionReaper struct {
	idle, sweepEvery time.Duration
	maxTracked       int // bounds uses against made-up session ids
	now              func() time.Time

	mu        sync.Mutex
	uses      map[string]*sessionUse // by session id
	lastSweep time.Time
}

// sessionUse is the activity of one session.
type sessionUse struct {
	last time.Time // end of the last request, or when first seen
	open int       // requests in progress
}

func newSessionReaper(idle time.Duration, maxSessions int) *sessionReaper {
	return &sessionReaper{idle: idle, sweepEvery: min(time.Minute, idle/4), maxTracked: 4 * maxSessions,
		now: time.Now, uses: map[string]*sessionUse{}}
}

// begin marks a request of session id in progress; the returned function
// ends it.
func (r *sessionReaper) begin(id string) (end func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	u := r.uses[id]
	if u == nil && len(r.uses) >= r.maxTracked {
		return func() {} // a made-up id past the bound: go-sdk answers 404 anyway
	}
	if u == nil {
		u = &sessionUse{}
		r.uses[id] = u
	}
	u.open++
	u.last = r.now()
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		u.open--
		u.last = r.now()
	}
}

// sweep closes the sessions idle past the timeout, if a sweep is due, and
// forgets the sessions that no longer exist.
func (r *sessionReaper) sweep(sessions iter.Seq[*mcp.ServerSession]) {
	r.mu.Lock()
	now := r.now()
	if now.Sub(r.lastSweep) < r.sweepEvery {
		r.mu.Unlock()
		return
	}
	r.lastSweep = now
	live := map[string]bool{}
	var idle []*mcp.ServerSession
	for ss := range sessions {
		id := ss.ID()
		if id == "" {
			continue // a 2026-07-28 request's temporary session
		}
		live[id] = true
		u := r.uses[id]
		switch {
		case u == nil:
			r.uses[id] = &sessionUse{last: now}
		case u.open == 0 && now.Sub(u.last) > r.idle:
			idle = append(idle, ss)
			delete(r.uses, id)
		}
	}
	for id := range r.uses {
		if !live[id] {
			delete(r.uses, id)
		}
	}
	r.mu.Unlock()
	for _, ss := range idle {
		_ = ss.Close()
	}
}

// sessionBook bounds the legacy sessions open at once, in total and per
// client, so that one client (one principal, or one address when
// anonymous) cannot take every session and lock the others out. An
// initialize reserves its place before go-sdk creates the session, so
// concurrent initializes cannot overshoot either bound.
type sessionBook struct {
	max, perClient int // perClient 0: no per-client bound

	mu      sync.Mutex
	owners  map[string]string // session id -> client key
	pending map[string]int    // client key -> initializes in progress
	opening int               // initializes in progress, all clients
}

// Why an initialize is refused.
const (
	sessionsFull       = "too_many_sessions"
	clientSessionsFull = "too_many_client_sessions"
)

func newSessionBook(max, perClient int) *sessionBook {
	return &sessionBook{max: max, perClient: perClient, owners: map[string]string{}, pending: map[string]int{}}
}

// reserve admits an initialize of client, or says why not. live are the
// sessions open now; opened must be called with the id of the session the
// initialize created ("" for none).
func (b *sessionBook) reserve(client string, live iter.Seq[*mcp.ServerSession]) (opened func(id string), refused string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ids := map[string]bool{}
	for ss := range live {
		if id := ss.ID(); id != "" {
			ids[id] = true
		}
	}
	held := b.pending[client]
	for id, c := range b.owners {
		switch {
		case !ids[id]:
			delete(b.owners, id) // closed since
		case c == client:
			held++
		}
	}
	switch {
	case len(ids)+b.opening >= b.max:
		return nil, sessionsFull
	case b.perClient > 0 && held >= b.perClient:
		return nil, clientSessionsFull
	}
	b.pending[client]++
	b.opening++
	return func(id string) {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.pending[client]--; b.pending[client] == 0 {
			delete(b.pending, client)
		}
		b.opening--
		if id != "" {
			b.owners[id] = client
		}
	}, ""
}
