package server

import (
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// subscriptions is what clients asked to hear about, per session: the
// resources they subscribed to with legacy resources/subscribe, and their
// 2026-07-28 listens with what each was acknowledged for. It bounds what a
// session, a client (client.go) and all clients together may make the host
// hold, maps the URIs providers report to the URIs clients sent, decides
// who hears of a change, and tells the change feeds whether anyone is
// listening.
//
// A subscription is to a resource, not to a spelling of its URI: it is
// keyed by subscriptionKey, so a session that subscribed under several
// spellings holds one subscription, hears each change once (under the
// spelling it used first), and an unsubscribe under any spelling ends it.
//
// go-sdk keeps a table of its own (uri -> session -> listen) and could send
// the notifications, but it holds one listen per session and URI, so the
// end of one listen silences another listen of the same session (the
// go-sdk client opens one listen for list changes and one per Subscribe);
// the server therefore delivers every change notification itself.
type subscriptions struct {
	lim liveLimits

	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*sessionSubs
	index    map[string]map[*mcp.ServerSession]bool // subscription key -> sessions that hold it
	clients  map[string]*clientShare                // by client key, while it holds anything
	held     int                                    // subscribed resources, all sessions
	open     int                                    // open listens, all sessions
}

// liveLimits are the bounds of live resources (Config, live.go).
type liveLimits struct {
	perSession       int // subscribed resources, URIs named by open listens, open listens
	subsPerClient    int // subscribed resources of one client, all its sessions
	subsTotal        int // subscribed resources, all clients
	listensPerClient int // open listens of one client, all its sessions
	listensTotal     int // open listens, all clients
}

// clientShare is what one client holds, across its sessions.
type clientShare struct{ held, open int }

// sessionSubs is one session's share of subscriptions.
type sessionSubs struct {
	client  string                   // the client that opened the session ("" for none: stdio, in-process)
	subs    map[string]*subscription // by subscription key
	named   int                      // URIs named by open listens, repeats included
	open    int                      // open subscriptions/listen requests
	listens map[any]*listening       // acknowledged listens, by subscription id
}

// subscription is one subscribed resource of a session: held by a legacy
// subscribe (once however often repeated, under whatever spelling; one
// unsubscribe ends it) and by refs listens that name it.
type subscription struct {
	uri    string // the spelling the session used first: notifications carry it
	legacy bool
	refs   int
}

// listening is what one listen was acknowledged for.
type listening struct {
	uris        map[string]string // subscription key -> the spelling the listen named first
	listChanged bool              // resourcesListChanged
}

func newSubscriptions(lim liveLimits) *subscriptions {
	return &subscriptions{
		lim:      lim,
		sessions: map[*mcp.ServerSession]*sessionSubs{},
		index:    map[string]map[*mcp.ServerSession]bool{},
		clients:  map[string]*clientShare{},
	}
}

// subscriptionKey is the key of the resource a normalized URI (checkURI)
// names: percent-encodings in upper case, and those of unreserved
// characters decoded (RFC 3986 sections 6.2.2.1 and 6.2.2.2), so that
// spellings RFC 3986 calls equivalent are one subscription.
func subscriptionKey(norm string) string {
	if !strings.Contains(norm, "%") {
		return norm
	}
	var b strings.Builder
	for i := 0; i < len(norm); i++ {
		c := norm[i]
		if c != '%' || i+2 >= len(norm) || !isHex(norm[i+1]) || !isHex(norm[i+2]) {
			b.WriteByte(c)
			continue
		}
		d := unhex(norm[i+1])<<4 | unhex(norm[i+2])
		if isUnreserved(d) {
			b.WriteByte(d)
		} else {
			b.WriteString(strings.ToUpper(norm[i : i+3]))
		}
		i += 2
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0
}

// subscriptionKeyOf is the subscription key of a URI a client sent, or "" for one
// checkURI refuses.
func subscriptionKeyOf(raw string) string {
	norm, _, err := checkURI(raw)
	if err != nil {
		return ""
	}
	return subscriptionKey(norm)
}

// session returns the state of ss, creating it for client and arranging
// for it to be dropped when the session ends. The caller holds s.mu.
func (s *subscriptions) session(ss *mcp.ServerSession, client string) *sessionSubs {
	st := s.sessions[ss]
	if st == nil {
		st = &sessionSubs{client: client, subs: map[string]*subscription{}, listens: map[any]*listening{}}
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

// share returns what the client of st holds, creating it. The caller holds
// s.mu.
func (s *subscriptions) share(st *sessionSubs) *clientShare {
	c := s.clients[st.client]
	if c == nil {
		c = &clientShare{}
		s.clients[st.client] = c
	}
	return c
}

// release forgets a client's share once it holds nothing. The caller holds
// s.mu.
func (s *subscriptions) release(client string) {
	if c := s.clients[client]; c != nil && c.held == 0 && c.open == 0 {
		delete(s.clients, client)
	}
}

// add records that ss, opened by client, subscribed to uri (key is its
// subscription key), by a listen or by a legacy subscribe. It refuses a
// new resource past the session's bound, the client's share or the total.
func (s *subscriptions) add(ss *mcp.ServerSession, client, uri, key string, byListen bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.session(ss, client)
	if byListen && st.named >= s.lim.perSession {
		return tooMany("resources named by open listens", s.lim.perSession)
	}
	sub := st.subs[key]
	if sub == nil {
		c := s.share(st)
		defer s.release(st.client)
		switch {
		case len(st.subs) >= s.lim.perSession:
			return tooMany("subscribed resources", s.lim.perSession)
		case st.client != "" && c.held >= s.lim.subsPerClient:
			return clientFull("subscribed resources", s.lim.subsPerClient)
		case s.held >= s.lim.subsTotal:
			return serverFull()
		}
		sub = &subscription{uri: uri}
		st.subs[key] = sub
		s.held++
		c.held++
		if s.index[key] == nil {
			s.index[key] = map[*mcp.ServerSession]bool{}
		}
		s.index[key][ss] = true
	}
	if byListen {
		sub.refs++
		st.named++
	} else {
		sub.legacy = true
	}
	return nil
}

// remove undoes add for the resource uri names, under whatever spelling.
// Removing what is not held does nothing.
func (s *subscriptions) remove(ss *mcp.ServerSession, uri string, byListen bool) {
	key := subscriptionKeyOf(uri)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sessions[ss]
	if st == nil || st.subs[key] == nil {
		return
	}
	sub := st.subs[key]
	switch {
	case byListen && sub.refs > 0:
		sub.refs--
		st.named--
	case !byListen:
		sub.legacy = false
	}
	if !sub.legacy && sub.refs == 0 {
		delete(st.subs, key)
		s.held--
		s.share(st).held--
		s.release(st.client)
		s.unindex(key, ss)
	}
}

// unindex forgets one holder of key. The caller holds s.mu.
func (s *subscriptions) unindex(key string, ss *mcp.ServerSession) {
	delete(s.index[key], ss)
	if len(s.index[key]) == 0 {
		delete(s.index, key)
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
	for key := range st.subs {
		s.unindex(key, ss)
	}
	c := s.share(st)
	c.held -= len(st.subs)
	c.open -= st.open
	s.release(st.client)
	s.held -= len(st.subs)
	s.open -= st.open
	delete(s.sessions, ss)
}

// subscribed reports whether any session subscribed to the resource of
// the subscription key.
func (s *subscriptions) subscribed(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.index[key]) > 0
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

// beginListen counts an open listen of ss, opened by client, refusing one
// past the session's bound, the client's share or the total.
func (s *subscriptions) beginListen(ss *mcp.ServerSession, client string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.session(ss, client)
	c := s.share(st)
	defer s.release(st.client)
	switch {
	case st.open >= s.lim.perSession:
		return tooMany("open subscriptions/listen requests", s.lim.perSession)
	case st.client != "" && c.open >= s.lim.listensPerClient:
		return clientFull("open subscriptions/listen requests", s.lim.listensPerClient)
	case s.open >= s.lim.listensTotal:
		return serverFull()
	}
	st.open++
	c.open++
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
	l := &listening{uris: map[string]string{}, listChanged: ack.ResourcesListChanged}
	for _, uri := range ack.ResourceSubscriptions {
		if key := subscriptionKeyOf(uri); key != "" && l.uris[key] == "" {
			l.uris[key] = uri
		}
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
		s.share(st).open--
		s.release(st.client)
		s.open--
	}
	if id != nil {
		delete(st.listens, id)
	}
}

// serverFull is the error of a request past a bound across clients.
func serverFull() *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
		Message: "the server holds as many subscriptions as it may: try again later"}
}

// clientFull is the error of a request past a client's share.
func clientFull(what string, max int) *jsonrpc.Error {
	return &jsonrpc.Error{
		Code: jsonrpc.CodeInvalidParams,
		Message: fmt.Sprintf("too many %s: at most %d per client across its sessions; "+
			"unsubscribe or end a listen first", what, max),
	}
}

// tooMany is the error of a request past a per-session bound.
func tooMany(what string, max int) *jsonrpc.Error {
	return &jsonrpc.Error{
		Code:    jsonrpc.CodeInvalidParams,
		Message: fmt.Sprintf("too many %s: at most %d per session; unsubscribe or end a listen first", what, max),
	}
}
