package server

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/server/auth"
)

func TestLimiter_bucket(t *testing.T) {
	l := newLimiter(2, 3) // 2/s, burst 3
	now := time.Unix(1000, 0)
	l.now = func() time.Time { return now }
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	for range 3 {
		ok, _ := l.allow(a.String())
		require.True(t, ok, "the burst passes")
	}
	ok, wait := l.allow(a.String())
	require.False(t, ok, "past the burst")
	require.Equal(t, 500*time.Millisecond, wait, "one token every 1/rate")
	ok, _ = l.allow(b.String())
	require.True(t, ok, "clients have their own buckets")
	now = now.Add(500 * time.Millisecond)
	ok, _ = l.allow(a.String())
	require.True(t, ok, "refilled at the rate")
	ok, _ = l.allow(a.String())
	require.False(t, ok)
}

func TestLimiter_sweepForgetsIdleClients(t *testing.T) {
	l := newLimiter(10, 1)
	now := time.Unix(1000, 0)
	l.now = func() time.Time { return now }
	for i := range 100 {
		l.allow(netip.AddrFrom4([4]byte{10, 0, 0, byte(i)}).String())
	}
	require.Len(t, l.buckets, 100)
	now = now.Add(2 * time.Minute)
	l.allow("address 10.1.0.0")
	require.Len(t, l.buckets, 1, "refilled buckets are dropped at the sweep")
}

func TestRateKey(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.1:5555":            "192.0.2.1",
		"[2001:db8:1:2:3:4:5:6]:80": "2001:db8:1:2::",
		"[::ffff:192.0.2.9]:80":     "192.0.2.9",
		"garbage":                   "invalid IP",
	} {
		require.Equal(t, want, rateKey(peerAddr(in)).String(), in)
	}
}

// TestHTTP_rateLimit: past the burst a client gets 429 with Retry-After;
// health checks are never limited.
func TestHTTP_rateLimit(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	url := serveHTTP(t, s, NewHTTPConfig().WithRateLimit(0.5, 2))
	read := func() (int, http.Header) {
		status, hdr, _ := rawPost(t, url, modernHeaders("resources/read", "notes:///hello"), modernRead("notes:///hello"))
		return status, hdr
	}
	for range 2 {
		status, _ := read()
		require.Equal(t, http.StatusOK, status)
	}
	status, hdr := read()
	require.Equal(t, http.StatusTooManyRequests, status)
	require.Equal(t, "2", hdr.Get("Retry-After"))
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url[:len(url)-len(MCPPath)]+HealthzPath, nil)
	require.NoError(t, err)
	status, _, _ = do(t, req)
	require.Equal(t, http.StatusOK, status)
}

func TestClientAddr_trustedProxies(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	h, err := s.newHTTPHandler(NewHTTPConfig().WithTrustedProxies(netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.1/32")))
	require.NoError(t, err)
	tests := []struct {
		peer, xff, want string
	}{
		{"192.0.2.1:1", "198.51.100.7", "192.0.2.1"},
		{"127.0.0.1:1", "", "127.0.0.1"},
		{"127.0.0.1:1", "198.51.100.7", "198.51.100.7"},
		{"127.0.0.1:1", "198.51.100.7, 10.1.2.3", "198.51.100.7"},
		{"127.0.0.1:1", "203.0.113.66, 198.51.100.7", "198.51.100.7"},
		{"127.0.0.1:1", "198.51.100.7, garbage", "127.0.0.1"},
		{"10.9.9.9:1", "10.1.1.1", "10.1.1.1"},
	}
	for _, tt := range tests {
		r, err := http.NewRequest(http.MethodPost, "http://x/mcp", nil)
		require.NoError(t, err)
		r.RemoteAddr = tt.peer
		if tt.xff != "" {
			r.Header.Set("X-Forwarded-For", tt.xff)
		}
		require.Equal(t, tt.want, h.clientAddr(r).String(), "%s via %s", tt.xff, tt.peer)
	}
}

// TestHTTP_rateLimitBehindProxy: behind a trusted proxy each forwarded
// client has its own bucket.
func TestHTTP_rateLimitBehindProxy(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	url := serveHTTP(t, s, NewHTTPConfig().WithRateLimit(0.1, 1).WithTrustedProxies(netip.MustParsePrefix("127.0.0.0/8")))
	read := func(client string) int {
		hdr := modernHeaders("resources/read", "notes:///hello")
		hdr["X-Forwarded-For"] = client
		status, _, _ := rawPost(t, url, hdr, modernRead("notes:///hello"))
		return status
	}
	require.Equal(t, http.StatusOK, read("198.51.100.1"))
	require.Equal(t, http.StatusTooManyRequests, read("198.51.100.1"))
	require.Equal(t, http.StatusOK, read("198.51.100.2"))
}

// serveOn serves s with cfg through ServeStreamable on a listener at addr
// and returns the /mcp URL to reach it over loopback.
func serveOn(t *testing.T, s *Server, addr string, cfg HTTPConfig) string {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeStreamable(ctx, ln, cfg) }()
	t.Cleanup(func() { stop(); require.NoError(t, <-done) })
	_, port, err := net.SplitHostPort(ln.Addr().String())
	require.NoError(t, err)
	return "http://127.0.0.1:" + port + MCPPath
}

// TestServeStreamable_perClientLimitsFollowTheBind: with default limits, a
// loopback bind where nothing tells clients apart lets one local client
// send requests as fast as it likes and open more legacy sessions than the
// per-client bound (every local client has that address); off loopback, or
// once tokens name the clients, the per-client bound applies, and limits
// set explicitly apply everywhere.
func TestServeStreamable_perClientLimitsFollowTheBind(t *testing.T) {
	tokens := auth.NewConfig().WithStaticToken("alice", "alice-secret")
	tests := []struct {
		name     string
		addr     string
		cfg      HTTPConfig
		header   map[string]string
		sessions int // legacy sessions one client may open
	}{
		{"loopback", "127.0.0.1:0", NewHTTPConfig(), nil, DefaultMaxSessions},
		{"loopback with tokens", "127.0.0.1:0", NewHTTPConfig().WithAuth(tokens),
			map[string]string{"Authorization": "Bearer alice-secret"}, DefaultMaxSessionsPerClient},
		{"loopback, bound set", "127.0.0.1:0", NewHTTPConfig().WithMaxSessionsPerClient(3), nil, 3},
		{"every interface", "0.0.0.0:0", NewHTTPConfig().WithAllowedHosts("*"), nil, DefaultMaxSessionsPerClient},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, NewConfig().WithProviders(notesProvider()))
			url := serveOn(t, s, tt.addr, tt.cfg)
			initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
			limit := min(tt.sessions, DefaultMaxSessionsPerClient+1)
			for i := range limit {
				status, _, body := rawPost(t, url, tt.header, initialize)
				require.Equal(t, http.StatusOK, status, "session %d: %s", i+1, body)
			}
			status, _, _ := rawPost(t, url, tt.header, initialize)
			if tt.sessions > DefaultMaxSessionsPerClient {
				require.Equal(t, http.StatusOK, status, "no per-client bound")
			} else {
				require.Equal(t, http.StatusTooManyRequests, status)
			}
		})
	}
}

// TestServeStreamable_noRateLimitOnLoopback: one local client (as the
// conformance suite is) sends hundreds of requests at once through the
// official client on a default loopback server and none is refused.
func TestServeStreamable_noRateLimitOnLoopback(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	url := serveOn(t, s, "127.0.0.1:0", NewHTTPConfig())
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		cs := connectHTTP(t, url, version, nil, nil)
		for i := range 3 * DefaultRateBurst {
			_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///hello"})
			require.NoError(t, err, "%s request %d", version, i+1)
		}
	}
}

// TestHTTP_rateLimitBySubject: an authenticated client is limited as its
// token's subject: another token from the same address has its own bucket,
// and requests that fail authentication are limited by address.
func TestHTTP_rateLimitBySubject(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	auth := auth.NewConfig().WithStaticToken("alice", "alice-secret").WithStaticToken("bob", "bob-secret")
	url := serveHTTP(t, s, NewHTTPConfig().WithAuth(auth).WithRateLimit(0.001, 2))
	read := func(token string) int {
		hdr := modernHeaders("resources/read", "notes:///hello")
		hdr["Authorization"] = "Bearer " + token
		status, _, _ := rawPost(t, url, hdr, modernRead("notes:///hello"))
		return status
	}
	require.Equal(t, []int{200, 200, 429}, []int{read("alice-secret"), read("alice-secret"), read("alice-secret")})
	require.Equal(t, []int{200, 200, 429}, []int{read("bob-secret"), read("bob-secret"), read("bob-secret")},
		"bob shares alice's address, not her bucket")
	require.Equal(t, []int{401, 401, 429}, []int{read("guess-1"), read("guess-2"), read("guess-3")},
		"failed authentications are limited by address")
}

func TestHTTPConfig_forBind(t *testing.T) {
	tokens := auth.NewConfig().WithStaticToken("alice", "alice-secret")
	proxy := netip.MustParsePrefix("127.0.0.1/32")
	tests := []struct {
		name      string
		cfg       HTTPConfig
		loopback  bool
		rate      float64
		perClient int
	}{
		{"loopback", NewHTTPConfig(), true, 0, 0},
		{"not loopback", NewHTTPConfig(), false, DefaultRateLimit, DefaultMaxSessionsPerClient},
		{"loopback with tokens", NewHTTPConfig().WithAuth(tokens), true, DefaultRateLimit, DefaultMaxSessionsPerClient},
		{"loopback behind a proxy", NewHTTPConfig().WithTrustedProxies(proxy), true, DefaultRateLimit, DefaultMaxSessionsPerClient},
		{"loopback, set", NewHTTPConfig().WithRateLimit(7, 9).WithMaxSessionsPerClient(4), true, 7, 4},
	}
	for _, tt := range tests {
		got := tt.cfg.forBind(tt.loopback)
		require.Equal(t, tt.rate, got.rate, tt.name)
		require.Equal(t, tt.perClient, got.maxSessionsPerClient, tt.name)
	}
}
