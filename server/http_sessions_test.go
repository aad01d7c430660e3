package server

import (
	"net/http"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

// TestHTTP_sessionsPerClient: one token's subject cannot hold more than
// its share of legacy sessions, even opening them all at once; past it, it
// gets 429 saying what to do, while another subject still opens sessions,
// and a session it closes frees its place.
func TestHTTP_sessionsPerClient(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	url := serveHTTP(t, s, NewHTTPConfig().WithAuth(staticAuth()).WithRateLimit(0, 0).WithMaxSessions(10).WithMaxSessionsPerClient(3))
	alice := map[string]string{"Authorization": "Bearer alice-secret"}

	var wg sync.WaitGroup
	statuses := make(chan int, 20)
	for range 20 {
		wg.Go(func() {
			status, _, _ := rawPost(t, url, alice, initializeBody)
			statuses <- status
		})
	}
	wg.Wait()
	close(statuses)
	counts := map[int]int{}
	for st := range statuses {
		counts[st]++
	}
	require.Equal(t, map[int]int{http.StatusOK: 3, http.StatusTooManyRequests: 17}, counts)

	status, hdr, body := rawPost(t, url, alice, initializeBody)
	require.Equal(t, http.StatusTooManyRequests, status)
	require.Contains(t, body, "close one")
	require.NotEmpty(t, hdr.Get("Retry-After"))

	bob := connectHTTP(t, url, "2025-11-25", bearerClient("bob-secret"), nil)
	_, err := bob.ListResources(t.Context(), nil)
	require.NoError(t, err, "another subject still opens a session")
	_, err = mcp.NewClient(&mcp.Implementation{Name: "alice", Version: "1"}, nil).Connect(t.Context(),
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: bearerClient("alice-secret"), MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.Error(t, err, "the official client of alice is refused too")

	for ss := range s.mcp.Sessions() {
		if ss.ID() != "" && ss.ID() != bob.ID() {
			require.NoError(t, ss.Close())
			break
		}
	}
	status, _, body = rawPost(t, url, alice, initializeBody)
	require.Equal(t, http.StatusOK, status, "a closed session frees its place: %s", body)
}

// TestHTTP_sessionsPerAddress: anonymous clients are counted per address
// (here as forwarded by a trusted proxy).
func TestHTTP_sessionsPerAddress(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	url := serveHTTP(t, s, NewHTTPConfig().WithRateLimit(0, 0).WithMaxSessionsPerClient(2).
		WithTrustedProxies(netip.MustParsePrefix("127.0.0.1/32")))
	from := func(addr string) map[string]string { return map[string]string{"X-Forwarded-For": addr} }
	for range 2 {
		status, _, body := rawPost(t, url, from("192.0.2.1"), initializeBody)
		require.Equal(t, http.StatusOK, status, body)
	}
	status, _, _ := rawPost(t, url, from("192.0.2.1"), initializeBody)
	require.Equal(t, http.StatusTooManyRequests, status)
	status, _, body := rawPost(t, url, from("192.0.2.2"), initializeBody)
	require.Equal(t, http.StatusOK, status, body)
	status, _, _ = rawPost(t, url, from("2001:db8::1"), initializeBody)
	require.Equal(t, http.StatusOK, status)
	status, _, _ = rawPost(t, url, from("2001:db8::1"), initializeBody)
	require.Equal(t, http.StatusOK, status)
	status, _, _ = rawPost(t, url, from("2001:db8::2"), initializeBody)
	require.Equal(t, http.StatusTooManyRequests, status, "an IPv6 client is its /64")
}
