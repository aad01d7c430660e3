package server

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds of the events kept for resuming a legacy session's GET stream.
const (
	// resumeEvents is the most events of one session kept for replay.
	resumeEvents = 128
	// resumeBytes is the most bytes of events one session keeps for
	// replay; a larger event is not kept (a resume from before it fails).
	// With the default --max-sessions (1000) all sessions together keep
	// at most 64 MiB.
	resumeBytes = 64 << 10
)

// resumeStore is go-sdk's EventStore for legacy (2025-era) sessions: it
// keeps the last events of each session's GET stream so that a client that
// lost the stream (a proxy cut it) and reconnects with Last-Event-ID gets
// what it missed. The events of POST streams are counted, not kept: their
// answer is what matters, and a stream's storage ends with the session
// only, so keeping them would grow with every request. Each session keeps
// at most resumeEvents events and resumeBytes bytes, the oldest dropped
// first; a resume from before the oldest kept event fails (go-sdk answers
// 400), and the client lists again.
type resumeStore struct {
	mu       sync.Mutex
	sessions map[string]*resumeLog
}

// resumeLog is one session's GET stream: events next-len(data) to next-1.
type resumeLog struct {
	next  int // index of the next event
	data  [][]byte
	bytes int
}

// getStream is go-sdk's id of a session's GET stream.
const getStream = ""

// headerLastEventID is the SSE header of a resumed stream.
const headerLastEventID = "Last-Event-ID"

func newResumeStore() *resumeStore { return &resumeStore{sessions: map[string]*resumeLog{}} }

var _ mcp.EventStore = (*resumeStore)(nil)

// Open implements mcp.EventStore.
func (s *resumeStore) Open(_ context.Context, sessionID, streamID string) error {
	if streamID == getStream {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.log(sessionID)
	}
	return nil
}

// log returns the session's log, made if missing. The caller holds s.mu.
func (s *resumeStore) log(sessionID string) *resumeLog {
	l := s.sessions[sessionID]
	if l == nil {
		l = &resumeLog{}
		s.sessions[sessionID] = l
	}
	return l
}

// Append implements mcp.EventStore. It never fails: go-sdk numbers the
// events it writes whether or not they were stored.
func (s *resumeStore) Append(_ context.Context, sessionID, streamID string, data []byte) error {
	if streamID != getStream {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.log(sessionID)
	l.next++
	if len(data) > resumeBytes {
		l.data, l.bytes = nil, 0 // nothing before it can be replayed either
		return nil
	}
	l.data = append(l.data, data)
	l.bytes += len(data)
	for len(l.data) > resumeEvents || l.bytes > resumeBytes {
		l.bytes -= len(l.data[0])
		l.data[0] = nil
		l.data = l.data[1:]
	}
	return nil
}

// After implements mcp.EventStore: the events after index, or
// mcp.ErrEventsPurged when the one after it is no longer kept.
func (s *resumeStore) After(_ context.Context, sessionID, streamID string, index int) iter.Seq2[[]byte, error] {
	s.mu.Lock()
	var out [][]byte
	var err error
	l := s.sessions[sessionID]
	switch {
	case index < 0 && (streamID != getStream || l == nil):
		// a stream starting: nothing to replay
	case streamID != getStream || l == nil:
		err = fmt.Errorf("replaying events: %w", mcp.ErrEventsPurged)
	default:
		first := l.next - len(l.data)
		if index+1 < first || index >= l.next {
			err = fmt.Errorf("replaying events: %w", mcp.ErrEventsPurged)
			break
		}
		out = append(out, l.data[index+1-first:]...)
	}
	s.mu.Unlock()
	return func(yield func([]byte, error) bool) {
		if err != nil {
			yield(nil, err)
			return
		}
		for _, d := range out {
			if !yield(d, nil) {
				return
			}
		}
	}
}

// SessionClosed implements mcp.EventStore.
func (s *resumeStore) SessionClosed(_ context.Context, sessionID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, sessionID)
	return nil
}

// resumeFromNow makes a GET without Last-Event-ID on a legacy session
// resume from the session's last event: go-sdk would replay the whole
// stream to it (and, once the oldest events were dropped, refuse it), when
// a stream opened afresh should carry only what comes next.
func (s *resumeStore) resumeFromNow(r *http.Request) {
	id := r.Header.Get(headerSessionID)
	if id == "" || len(r.Header.Values(headerLastEventID)) > 0 {
		return
	}
	if last := s.lastOf(id); last >= 0 {
		r.Header.Set(headerLastEventID, getStream+"_"+strconv.Itoa(last))
	}
}

// lastOf is the index of a session's last event, -1 if none.
func (s *resumeStore) lastOf(sessionID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := s.sessions[sessionID]; l != nil {
		return l.next - 1
	}
	return -1
}

// sessionCount is the sessions that keep events, for tests.
func (s *resumeStore) sessionCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}
