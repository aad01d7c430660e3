package server

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// sseEvent is one event of an event stream.
type sseEvent struct{ id, data string }

// sseEvents feeds the events of an event stream into a channel.
func sseEvents(resp *http.Response) <-chan sseEvent {
	ch := make(chan sseEvent, 256)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		var e sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id: "):
				e.id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				e.data = strings.TrimPrefix(line, "data: ")
			case line == "" && e.data != "":
				ch <- e
				e = sseEvent{}
			}
		}
	}()
	return ch
}

// nextUpdate waits for the next resources/updated event.
func nextUpdate(t *testing.T, events <-chan sseEvent) sseEvent {
	t.Helper()
	timeout := time.After(waitLong)
	for {
		select {
		case e, ok := <-events:
			require.True(t, ok, "the stream ended")
			if strings.Contains(e.data, notifyResourceUpdated) {
				return e
			}
		case <-timeout:
			t.Fatal("no resources/updated event")
		}
	}
}

// getEvents opens the GET stream of a legacy session, resuming after
// lastEventID unless it is "", and returns its status and events; cancel
// closes it.
func getEvents(t *testing.T, url string, session map[string]string, lastEventID string) (int, <-chan sseEvent, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range session {
		req.Header.Set(k, v)
	}
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { cancel(); _ = resp.Body.Close() })
	return resp.StatusCode, sseEvents(resp), cancel
}

// TestHTTP_resumeGETStream: a legacy session's GET stream carries event
// ids; a client whose stream broke reconnects with Last-Event-ID and gets
// the notifications it missed, in order; a stream opened afresh gets only
// what comes next, even once more events were sent than a session keeps.
func TestHTTP_resumeGETStream(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()).withNotifyDelay(maxNotifyDelay))
	h, err := s.newHTTPHandler(NewHTTPConfig())
	require.NoError(t, err)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.endStreams(); ts.Close() })
	url := ts.URL + MCPPath
	session := legacySession(t, url)
	for i, uri := range []string{"notes:///hello", "notes:///logo.png"} {
		status, _, body := rawPost(t, url, session, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/subscribe","params":{"uri":%q}}`, i+10, uri))
		require.Equal(t, http.StatusOK, status, body)
	}
	sid := session["Mcp-Session-Id"]
	update := func(uri string) {
		before := h.events.lastOf(sid)
		s.ResourcesUpdated("notes", uri)
		s.notify.flush()
		require.Eventually(t, func() bool { return h.events.lastOf(sid) > before }, waitLong, time.Millisecond)
	}

	status, events, closeGET := getEvents(t, url, session, "")
	require.Equal(t, http.StatusOK, status)
	update("notes:///hello")
	seen := nextUpdate(t, events)
	require.NotEmpty(t, seen.id, "events carry ids")
	closeGET()

	update("notes:///logo.png") // missed
	update("notes:///hello")    // missed
	// reopen opens the GET stream again: 409 until the server has seen
	// the old one go.
	reopen := func(lastEventID string) (<-chan sseEvent, context.CancelFunc) {
		var events <-chan sseEvent
		var closeGET context.CancelFunc
		require.Eventually(t, func() bool {
			status, events, closeGET = getEvents(t, url, session, lastEventID)
			return status == http.StatusOK
		}, waitLong, 10*time.Millisecond)
		return events, closeGET
	}
	resumed, closeGET := reopen(seen.id)
	require.Contains(t, nextUpdate(t, resumed).data, "notes:///logo.png")
	require.Contains(t, nextUpdate(t, resumed).data, "notes:///hello")
	update("notes:///logo.png")
	require.Contains(t, nextUpdate(t, resumed).data, "notes:///logo.png", "and the stream goes on")
	closeGET()

	for range resumeEvents + 5 { // more than a session keeps
		update("notes:///hello")
	}
	fresh, _ := reopen("")
	update("notes:///logo.png")
	require.Contains(t, nextUpdate(t, fresh).data, "notes:///logo.png", "a fresh stream replays nothing")
}

// TestResumeStore_bounds: a session keeps at most resumeEvents events and
// resumeBytes bytes, the oldest dropped first; a resume from before the
// oldest kept event fails rather than skip what was dropped; an event
// larger than the budget is not kept, nor anything before it; events of
// POST streams are not kept; sessions do not share budgets; a closed
// session keeps nothing.
func TestResumeStore_bounds(t *testing.T) {
	ctx := t.Context()
	st := newResumeStore()
	collect := func(sid, stream string, index int) ([]string, error) {
		var out []string
		for d, err := range st.After(ctx, sid, stream, index) {
			if err != nil {
				return out, err
			}
			out = append(out, string(d))
		}
		return out, nil
	}
	require.NoError(t, st.Open(ctx, "a", getStream))
	for i := range resumeEvents + 10 {
		require.NoError(t, st.Append(ctx, "a", getStream, fmt.Appendf(nil, "a%d", i)))
	}
	require.NoError(t, st.Append(ctx, "b", getStream, []byte("b0")))
	got, err := collect("a", getStream, resumeEvents+7)
	require.NoError(t, err)
	require.Equal(t, []string{fmt.Sprint("a", resumeEvents+8), fmt.Sprint("a", resumeEvents+9)}, got)
	_, err = collect("a", getStream, 5)
	require.ErrorContains(t, err, "purged", "events 6 to 9 were dropped")
	got, err = collect("a", getStream, 9)
	require.NoError(t, err)
	require.Len(t, got, resumeEvents)
	got, err = collect("b", getStream, -1)
	require.NoError(t, err)
	require.Equal(t, []string{"b0"}, got, "another session's events do not count against b")

	big := strings.Repeat("x", resumeBytes/3)
	for range 4 {
		require.NoError(t, st.Append(ctx, "b", getStream, []byte(big)))
	}
	got, err = collect("b", getStream, 1)
	require.NoError(t, err)
	require.Len(t, got, 3, "the byte budget keeps the last three")
	require.NoError(t, st.Append(ctx, "b", getStream, make([]byte, resumeBytes+1)))
	_, err = collect("b", getStream, 4)
	require.ErrorContains(t, err, "purged", "an event over the budget is not kept")
	got, err = collect("b", getStream, 5)
	require.NoError(t, err)
	require.Empty(t, got)

	require.NoError(t, st.Append(ctx, "b", "post-stream", []byte("answer")))
	got, err = collect("b", "post-stream", -1)
	require.NoError(t, err)
	require.Empty(t, got)
	_, err = collect("b", "post-stream", 0)
	require.ErrorContains(t, err, "purged")

	require.NoError(t, st.SessionClosed(ctx, "a"))
	require.NoError(t, st.SessionClosed(ctx, "b"))
	require.Zero(t, st.sessionCount())
}
