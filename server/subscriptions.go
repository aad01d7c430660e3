package server

import (
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// subscriptions is what clients asked to hear about, per session: the
// resources they subscribed to with legacy resources/subscribe, and their
// 2026-07-28 listens with what each was acknowledged for. It bounds what a
// session may make the host hold, maps the normalized URIs providers report
// to the URIs clients sent, decides who hears of a change, and tells the
// change feeds whether anyone is listening.
//
// go-sdk keeps a table of its own (uri -> session -> listen) and could send
// the notifications, but it holds one listen per session and URI, so the
// end of one listen silences another listen of the same session (the
// go-sdk client opens one listen for list changes and one per Subscribe);
// the server therefore delivers every change notification itself.
type subscriptions struct {
	max    int // per session: subscribed URIs, URIs named by open listens, open listens
	maxAll int // across sessions: subscribed URIs, open listens

	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*sessionSubs
	index    map[string]map[holder]bool // normalized uri -> who subscribed to it
	held     int                        // subscribed URIs, all sessions
	open     int                        // open listens, all sessions
}

// allSessions is how many sessions' worth of subscriptions the server
// holds at most in total.
const allSessions = 100

// holder is a session's subscription to a URI, as the session sent it.
type holder struct {
	ss  *mcp.ServerSession
	uri string
}

// sessionSubs is one session's share of subscriptions.
type sessionSubs struct {
	uris    map[string]*subscription // by uri as the client sent it
	named   int                      // URIs named by open listens, repeats included
	open    int                      // open subscriptions/listen requests
	listens map[any]*listening       // acknowledged listens, by subscription id
}

// subscription is one subscribed URI of a session: held by a legacy
// subscribe (once however often repeated; one unsubscribe ends it) and by
// refs listens that name it.
type subscription struct {
	norm   string
	legacy bool
	refs   int
}

// listening is what one listen was acknowledged for.
type listening struct {
	uris        map[string]bool // resourceSubscriptions, as sent
	listChanged bool            // resourcesListChanged
}

func newSubscriptions(max int) *subscriptions {
	return &subscriptions{
		max:      max,
		maxAll:   max * allSessions,
		sessions: map[*mcp.ServerSession]*sessionSubs{},
		index:    map[string]map[holder]bool{},
	}
}

// session returns the state of ss, creating it and arranging for it to be
// dropped when the session ends. The caller holds s.mu.
func (s *subscriptions) session(ss *mcp.ServerSession) *sessionSubs {
	st := s.sessions[ss]
	if st == nil {
		st = &sessionSubs{uris: map[string]*subscription{}, listens: map[any]*listening{}}
		s.sessions[ss] = st
		// The goroutine lives exactly as long as the session: Wait returns
		// when its connection closes, whatever the transport.
		go func() {
			_ = ss.Wait()
			s.drop(ss)
		}()
	}
	return st
}

// add records that ss subscribed to uri (norm is its normalized form), by
// a listen or by a legacy subscribe. It refuses a new URI past the
// per-session bound.
func (s *subscriptions) add(ss *mcp.ServerSession, uri, norm string, byListen bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.session(ss)
	if byListen && st.named >= s.max {
		return tooMany("resources named by open listens", s.max)
	}
	sub := st.uris[uri]
	if sub == nil {
		switch {
		case len(st.uris) >= s.max:
			return tooMany("subscribed resources", s.max)
		case s.held >= s.maxAll:
			return serverFull()
		}
		sub = &subscription{norm: norm}
		st.uris[uri] = sub
		s.held++
		if s.index[norm] == nil {
			s.index[norm] = map[holder]bool{}
		}
		s.index[norm][holder{ss, uri}] = true
	}
	if byListen {
		sub.refs++
		st.named++
	} else {
		sub.legacy = true
	}
	return nil
}

// remove undoes add. Removing what is not held does nothing.
func (s *subscriptions) remove(ss *mcp.ServerSession, uri string, byListen bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sessions[ss]
	if st == nil || st.uris[uri] == nil {
		return
	}
	sub := st.uris[uri]
	switch {
	case byListen && sub.refs > 0:
		sub.refs--
		st.named--
	case !byListen:
		sub.legacy = false
	}
	if !sub.legacy && sub.refs == 0 {
		delete(st.uris, uri)
		s.held--
		s.unindex(sub.norm, holder{ss, uri})
	}
}

// unindex forgets one holder of norm. The caller holds s.mu.
func (s *subscriptions) unindex(norm string, h holder) {
	delete(s.index[norm], h)
	if len(s.index[norm]) == 0 {
		delete(s.index, norm)
	}
}

// drop forgets a session that ended.
func (s *subscriptions) drop(ss *mcp.ServerSession) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sessions[ss]
	if st == nil {
		return
	}
	for uri, sub := range st.uris {
		s.unindex(sub.norm, holder{ss, uri})
	}
	s.held -= len(st.uris)
	s.open -= st.open
	delete(s.sessions, ss)
}

// subscribed reports whether any session subscribed to the normalized uri.
func (s *subscriptions) subscribed(norm string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.index[norm]) > 0
}

// active reports whether any session holds a subscription or a listen
// acknowledged for list changes.
func (s *subscriptions) active() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.index) > 0 {
		return true
	}
	for _, st := range s.sessions {
		for _, l := range st.listens {
			if l.listChanged {
				return true
			}
		}
	}
	return false
}

// beginListen counts an open listen of ss, refusing one past the bound.
func (s *subscriptions) beginListen(ss *mcp.ServerSession) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.session(ss)
	switch {
	case st.open >= s.max:
		return tooMany("open subscriptions/listen requests", s.max)
	case s.open >= s.maxAll:
		return serverFull()
	}
	st.open++
	s.open++
	return nil
}

// acknowledged records, once its acknowledgement went out, what listen id
// of ss hears: from then on, and not before, changes reach it.
func (s *subscriptions) acknowledged(ss *mcp.ServerSession, id any, ack mcp.NotificationSubscriptions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sessions[ss]
	if st == nil || st.open == 0 {
		return
	}
	l := &listening{uris: map[string]bool{}, listChanged: ack.ResourcesListChanged}
	for _, uri := range ack.ResourceSubscriptions {
		l.uris[uri] = true
	}
	st.listens[id] = l
}

// endListen undoes beginListen and acknowledged.
func (s *subscriptions) endListen(ss *mcp.ServerSession, id any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sessions[ss]
	if st == nil {
		return
	}
	if st.open > 0 {
		st.open--
		s.open--
	}
	if id != nil {
		delete(st.listens, id)
	}
}

// serverFull is the error of a request past a bound across sessions.
func serverFull() *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
		Message: "the server holds as many subscriptions as it may: try again later"}
}

// tooMany is the error of a request past a per-session bound.
func tooMany(what string, max int) *jsonrpc.Error {
	return &jsonrpc.Error{
		Code:    jsonrpc.CodeInvalidParams,
		Message: fmt.Sprintf("too many %s: at most %d per session; unsubscribe or end a listen first", what, max),
	}
}
