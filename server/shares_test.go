package server

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/server/auth"
)

// headerTransport adds headers to every request of a go-sdk client.
type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTP_subscriptionShares: one token's principal that subscribes to
// all it may, across as many sessions as it may open, cannot take the
// subscription pool from another principal.
func TestHTTP_subscriptionShares(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()).
		WithMaxSubscriptions(2).WithSubscriptionShares(4, 6))
	tokens := auth.NewConfig().WithStaticToken("alice", "alice-secret").WithStaticToken("carol", "carol-secret")
	url := serveHTTP(t, s, NewHTTPConfig().WithAuth(tokens).WithRateLimit(0, 0))
	as := func(token string) *http.Client {
		return &http.Client{Transport: headerTransport{"Authorization": "Bearer " + token}}
	}

	held, refusal := 0, ""
	for i := 0; refusal == "" && i < DefaultMaxSessionsPerClient; i++ {
		cs := connectHTTP(t, url, "2025-11-25", as("alice-secret"), nil)
		for j := range 2 {
			if err := cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: fmt.Sprintf("notes:///a/%d/%d", i, j)}); err != nil {
				refusal = rpcError(t, err).Message
				break
			}
			held++
		}
	}
	require.Equal(t, 4, held, "alice holds her share and no more")
	require.Contains(t, refusal, "at most 4 per client")

	carol := connectHTTP(t, url, "2025-11-25", as("carol-secret"), nil)
	require.NoError(t, carol.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "notes:///hello"}))
	require.NoError(t, carol.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "notes:///logo.png"}),
		"carol subscribes though alice subscribed to all she may")
}

// tryListen opens a 2026-07-28 listen for list changes from the anonymous
// client at xff (behind a trusted proxy). It returns the open stream once
// acknowledged, or the refusal's body.
func tryListen(t *testing.T, url, xff string) (io.ReadCloser, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(
		`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"resourcesListChanged":true},`+stdioMeta+`}}`))
	require.NoError(t, err)
	for k, v := range modernHeaders("subscriptions/listen", "") {
		req.Header.Set(k, v)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", xff)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if strings.Contains(line, notifyAcknowledged) {
			return resp.Body, ""
		}
		if strings.Contains(line, `"error"`) || err != nil {
			return nil, line
		}
	}
}

// TestHTTP_listenShares: one anonymous client (one address) that opens all
// the listens it may cannot take the listen pool from another address;
// each 2026-07-28 listen is a session of its own, so the per-session
// bound alone would not stop it.
func TestHTTP_listenShares(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()).WithMaxSubscriptions(1).WithListenShares(3, 5))
	url := serveHTTP(t, s, NewHTTPConfig().WithRateLimit(0, 0).
		WithTrustedProxies(netip.MustParsePrefix("127.0.0.0/8")))

	var streams []io.ReadCloser
	refusal := ""
	for refusal == "" && len(streams) < 200 {
		var stream io.ReadCloser
		if stream, refusal = tryListen(t, url, "192.0.2.1"); refusal == "" {
			streams = append(streams, stream)
		}
	}
	require.Len(t, streams, 3, "one address holds its share and no more")
	require.Contains(t, refusal, "at most 3 per client")

	_, refusal = tryListen(t, url, "192.0.2.2")
	require.Empty(t, refusal, "another address still listens")

	// A listen that ends gives its place back to its client.
	require.NoError(t, streams[0].Close())
	require.Eventually(t, func() bool {
		s.subs.mu.Lock()
		defer s.subs.mu.Unlock()
		return s.subs.open == 3
	}, testkit.Wait, time.Millisecond)
	_, refusal = tryListen(t, url, "192.0.2.1")
	require.Empty(t, refusal)
}
