package server

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestHTTP_idleSessions: a session without requests is closed after the
// idle timeout; one whose GET stream is open is not, however long.
func TestHTTP_idleSessions(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	url := serveHTTP(t, s, NewHTTPConfig().WithSessionIdleTimeout(200*time.Millisecond))
	idle := legacySession(t, url)
	listening := legacySession(t, url)
	openStream(t, url, http.MethodGet, listening, "")

	list := `{"jsonrpc":"2.0","id":3,"method":"resources/list"}`
	deadline := time.Now().Add(5 * time.Second)
	for {
		// Any request drives the sweep; a 2026-07-28 one touches no session.
		status, _, _ := rawPost(t, url, modernHeaders("resources/read", "notes:///hello"), modernRead("notes:///hello"))
		require.Equal(t, http.StatusOK, status)
		if status, _, _ := rawPost(t, url, idle, list); status == http.StatusNotFound {
			break
		}
		require.True(t, time.Now().Before(deadline), "the idle session was never closed")
		time.Sleep(300 * time.Millisecond) // longer than the timeout: the poll itself is activity
	}
	status, _, body := rawPost(t, url, listening, list)
	require.Equal(t, http.StatusOK, status, "a session with an open GET stream is not idle: %s", body)
}

func TestSessionReaper_boundsMadeUpIDs(t *testing.T) {
	r := newSessionReaper(time.Minute, 2)
	for i := range 20 {
		r.begin(string(rune('a' + i)))()
	}
	require.Len(t, r.uses, 8, "at most 4x the session cap is tracked")
}
