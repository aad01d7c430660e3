package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// listenBody is a 2026-07-28 subscriptions/listen with id for uri.
func listenBody(id, uri string) string {
	return `{"jsonrpc":"2.0","id":"` + id + `","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["` +
		uri + `"]},` + stdioMeta + `}}`
}

// cancelBody is notifications/cancelled for request id.
func cancelBody(id string) string {
	return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"` + id + `"}}`
}

// streamEnds waits for the end of lines and returns what came before it.
func streamEnds(t *testing.T, lines <-chan string) []string {
	t.Helper()
	var got []string
	timeout := time.After(waitLong)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return got
			}
			got = append(got, l)
		case <-timeout:
			t.Fatalf("the stream is still open; it carried %q", got)
		}
	}
}

// TestHTTP_cancelEndsListen: over HTTP a 2026-07-28 client that POSTs
// notifications/cancelled for its listen (without Mcp-Method: the revision
// defines that header for requests) gets 202 and the listen's stream
// closes, unanswered; another client cancelling the same id ends nothing.
// The sequence of a client changing its filter (listen A, cancel A,
// listen B) leaves exactly one open listen, which hears B's resource only.
func TestHTTP_cancelEndsListen(t *testing.T) {
	s := liveServer(t, NewConfig())
	url := serveHTTP(t, s, NewHTTPConfig().WithTrustedProxies(netip.MustParsePrefix("127.0.0.0/8")))
	as := func(client string, hdr map[string]string) map[string]string {
		out := map[string]string{"X-Forwarded-For": client}
		for k, v := range hdr {
			out[k] = v
		}
		return out
	}
	noMethod := map[string]string{"MCP-Protocol-Version": "2026-07-28"}

	a := bufioLines(openStream(t, url, http.MethodPost, as("10.0.0.1", modernHeaders(methodListen, "")), listenBody("A", "notes:///hello")))
	waitLine(t, a, notifyAcknowledged)
	require.Eventually(t, func() bool { return listens(s) == 1 }, waitLong, time.Millisecond)

	status, _, body := rawPost(t, url, as("10.0.0.2", noMethod), cancelBody("A"))
	require.Equal(t, http.StatusAccepted, status, body)
	status, _, body = rawPost(t, url, as("10.0.0.1", modernHeaders(methodListen, "")), cancelBody("A"))
	require.Equal(t, http.StatusBadRequest, status, "a header that does not match the body is still refused: %s", body)
	require.Equal(t, 1, listens(s), "another client's cancel, or a refused one, ends nothing")

	status, _, body = rawPost(t, url, as("10.0.0.1", noMethod), cancelBody("A"))
	require.Equal(t, http.StatusAccepted, status, body)
	for _, l := range streamEnds(t, a) {
		require.NotContains(t, l, `"result"`, "a cancelled listen is not answered")
	}

	b := bufioLines(openStream(t, url, http.MethodPost, as("10.0.0.1", modernHeaders(methodListen, "")), listenBody("B", "notes:///logo.png")))
	waitLine(t, b, notifyAcknowledged)
	require.Eventually(t, func() bool { return listens(s) == 1 && listenedTo(s, "notes:///logo.png") }, waitLong, time.Millisecond)
	s.ResourcesUpdated("notes", "notes:///hello", "notes:///logo.png")
	s.notify.flush()
	waitLine(t, b, `"uri":"notes:///logo.png"`)
	require.Equal(t, 1, listens(s))
	require.False(t, listenedTo(s, "notes:///hello"), "the cancelled filter is gone")
}

// TestHTTP_goSDKFilterChanges: the go-sdk client subscribes on 2026-07-28
// with one listen per resource and unsubscribes by cancelling it. Through
// subscribe A, unsubscribe A, subscribe B, the server holds exactly one
// listen, and updates follow the filter: B's arrive, A's do not.
func TestHTTP_goSDKFilterChanges(t *testing.T) {
	s := liveServer(t, NewConfig())
	url := serveHTTP(t, s, NewHTTPConfig())
	updated := make(chan string, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "filters", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
	})
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	require.NoError(t, err)
	defer cs.Close()

	require.NoError(t, cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "notes:///hello"}))
	require.Eventually(t, func() bool { return listenedTo(s, "notes:///hello") }, waitLong, time.Millisecond)
	require.NoError(t, cs.Unsubscribe(t.Context(), &mcp.UnsubscribeParams{URI: "notes:///hello"}))
	require.NoError(t, cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "notes:///logo.png"}))
	require.Eventually(t, func() bool { return listenedTo(s, "notes:///logo.png") }, waitLong, time.Millisecond)
	require.Eventually(t, func() bool { return listens(s) == 1 }, waitLong, time.Millisecond, "the unsubscribed listen stays open")

	s.ResourcesUpdated("notes", "notes:///hello", "notes:///logo.png")
	s.notify.flush()
	select {
	case uri := <-updated:
		require.Equal(t, "notes:///logo.png", uri)
	case <-time.After(waitLong):
		t.Fatal("no update for the subscribed resource")
	}
	// Updates are flushed in order: one more round proves none for
	// hello was on its way.
	s.ResourcesUpdated("notes", "notes:///logo.png")
	s.notify.flush()
	require.Equal(t, "notes:///logo.png", <-updated)
	require.Empty(t, updated)
}

// FuzzCheckBodyPeek: whatever a client POSTs, reading what routing needs
// (a call's id, the request a cancel names) never panics, a cancel is
// only ever read from notifications/cancelled, and a notification has no
// id.
func FuzzCheckBodyPeek(f *testing.F) {
	for _, seed := range []string{cancelBody("A"), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":null}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled"}`, listenBody("L", "notes:///hello"),
		`{"jsonrpc":"2.0","id":"x","method":"notifications/cancelled","params":{"requestId":"y"}}`} {
		f.Add(seed)
	}
	s := newServer(f, NewConfig())
	h, err := s.newHTTPHandler(NewHTTPConfig())
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, body string) {
		r := httptest.NewRequest(http.MethodPost, MCPPath, nil)
		_, pk, _ := h.checkBody(r, []byte(body))
		if pk.cancels != nil {
			require.Equal(t, notifyCancelled, pk.method)
			require.True(t, pk.notification)
		}
		if pk.notification {
			require.Nil(t, pk.id)
		}
	})
}
