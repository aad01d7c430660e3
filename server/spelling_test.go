package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// spellings are one resource's URI as RFC 3986 lets a client spell it:
// scheme case, and a percent-encoded unreserved character (%68 is 'h', in
// either hex case).
var spellings = []string{"notes:///hello", "NOTES:///hello", "Notes:///%68ello", "notes:///%68ello"}

// TestLive_spellingsAreOneSubscription: a legacy session that subscribes to
// one resource under several spellings hears each change once, under the
// spelling it used first, whichever spelling the provider reports; an
// unsubscribe under any spelling ends the subscription. A listen naming
// several spellings hears each change once too.
func TestLive_spellingsAreOneSubscription(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()).withNotifyDelay(time.Millisecond))
	url := serveHTTP(t, s, NewHTTPConfig().WithRateLimit(0, 0))
	updated, listChanged := make(chan string, 64), make(chan struct{}, 64)
	client := mcp.NewClient(&mcp.Implementation{Name: "spellings", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler:     func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { listChanged <- struct{}{} },
	})
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	defer cs.Close()
	for _, uri := range spellings {
		require.NoError(t, cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}))
	}
	listen := bufioLines(openStream(t, url, http.MethodPost, nil,
		`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"resourcesListChanged":true,"resourceSubscriptions":["NOTES:///hello","notes:///hello","notes:///%68ello"]},`+stdioMeta+`}}`))
	waitLine(t, listen, notifyAcknowledged)

	// heard reports what the session and the listen heard of a change
	// reported under one spelling, up to the list change that follows it:
	// each session's notifications go out in order.
	heard := func(reported string) (session, onListen []string) {
		t.Helper()
		s.ResourcesUpdated("notes", reported)
		s.ResourceListChanged()
		for done := false; !done; {
			select {
			case uri := <-updated:
				session = append(session, uri)
			case <-listChanged:
				done = true
			case <-time.After(waitLong):
				t.Fatal("no list change after the update")
			}
		}
		for l := range listen {
			if strings.Contains(l, notifyListChanged) {
				break
			}
			if strings.HasPrefix(l, "data:") {
				onListen = append(onListen, l)
			}
		}
		return session, onListen
	}
	for _, reported := range spellings {
		session, onListen := heard(reported)
		require.Equal(t, []string{"notes:///hello"}, session, "one notification, under the first spelling")
		require.Len(t, onListen, 1, "the listen hears the change once: %v", onListen)
		require.Contains(t, onListen[0], `"uri":"NOTES:///hello"`, "under the spelling the listen named first")
	}

	require.NoError(t, cs.Unsubscribe(t.Context(), &mcp.UnsubscribeParams{URI: "notes:///%68ello"}))
	session, onListen := heard("notes:///hello")
	require.Empty(t, session, "an unsubscribe under any spelling ends the subscription")
	require.Len(t, onListen, 1, "the listen's subscription is its own")
}
