package server

import (
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestLimiter_bucket(t *testing.T) {
	l := newLimiter(2, 3) // 2/s, burst 3
	now := time.Unix(1000, 0)
	l.now = func() time.Time { return now }
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	for range 3 {
		ok, _ := l.allow(a)
		require.True(t, ok, "the burst passes")
	}
	ok, wait := l.allow(a)
	require.False(t, ok, "past the burst")
	require.Equal(t, 500*time.Millisecond, wait, "one token every 1/rate")
	ok, _ = l.allow(b)
	require.True(t, ok, "clients have their own buckets")
	now = now.Add(500 * time.Millisecond)
	ok, _ = l.allow(a)
	require.True(t, ok, "refilled at the rate")
	ok, _ = l.allow(a)
	require.False(t, ok)
}

func TestLimiter_sweepForgetsIdleClients(t *testing.T) {
	l := newLimiter(10, 1)
	now := time.Unix(1000, 0)
	l.now = func() time.Time { return now }
	for i := range 100 {
		l.allow(netip.AddrFrom4([4]byte{10, 0, 0, byte(i)}))
	}
	require.Len(t, l.buckets, 100)
	now = now.Add(2 * time.Minute)
	l.allow(netip.MustParseAddr("10.1.0.0"))
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
