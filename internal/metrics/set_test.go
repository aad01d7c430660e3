package metrics

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSetProviderFamilies(t *testing.T) {
	s := NewSet()
	s.ProviderCall("notes", "read", "", 3*time.Millisecond)
	s.ProviderCall("notes", "read", "not_found", time.Millisecond)
	s.ProviderCall("notes", "list", "timeout", 5*time.Second)
	s.PoolWait("notes", 20*time.Microsecond)
	s.WatchProviders(func() map[string]ProviderStats { return map[string]ProviderStats{"gone": {}} })
	s.WatchProviders(func() map[string]ProviderStats {
		return map[string]ProviderStats{"notes": {PoolSize: 4, Live: 2, Instantiated: 3, MemoryHigh: 1 << 20, Quarantined: true, Quarantines: 1}}
	})

	_, e := scrape(t, s.Registry())
	for _, tt := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"mcpwasm_provider_calls_total", []string{"provider", "notes", "op", "read"}, 2},
		{"mcpwasm_provider_calls_total", []string{"provider", "notes", "op", "list"}, 1},
		{"mcpwasm_provider_errors_total", []string{"provider", "notes", "op", "read", "kind", "not_found"}, 1},
		{"mcpwasm_provider_errors_total", []string{"provider", "notes", "op", "list", "kind", "timeout"}, 1},
		{"mcpwasm_provider_call_duration_seconds_count", []string{"provider", "notes", "op", "read"}, 2},
		{"mcpwasm_provider_call_duration_seconds_bucket", []string{"provider", "notes", "op", "read", "le", "0.001"}, 1},
		{"mcpwasm_provider_call_duration_seconds_bucket", []string{"provider", "notes", "op", "read", "le", "0.005"}, 2},
		{"mcpwasm_provider_pool_wait_seconds_count", []string{"provider", "notes"}, 1},
		{"mcpwasm_provider_pool_size", []string{"provider", "notes"}, 4},
		{"mcpwasm_provider_pool_instances", []string{"provider", "notes"}, 2},
		{"mcpwasm_provider_instantiations_total", []string{"provider", "notes"}, 3},
		{"mcpwasm_provider_memory_high_water_bytes", []string{"provider", "notes"}, 1 << 20},
		{"mcpwasm_provider_quarantined", []string{"provider", "notes"}, 1},
		{"mcpwasm_provider_quarantines_total", []string{"provider", "notes"}, 1},
	} {
		v, ok := e.Value(tt.name, tt.labels...)
		require.True(t, ok, "%s %v missing", tt.name, tt.labels)
		require.Equal(t, tt.want, v, "%s %v", tt.name, tt.labels)
	}
	require.Zero(t, e.Sum("mcpwasm_provider_pool_size", "provider", "gone"), "a provider no longer watched is not reported")
	_, ok := e.Value("mcpwasm_provider_errors_total", "provider", "notes", "op", "read", "kind", "")
	require.False(t, ok, "a success is not an error")
}

func TestSetTransportFamilies(t *testing.T) {
	s := NewSet()
	tr := s.Transport("stdio")
	tr.Request("resources/read", "ok", time.Millisecond)
	tr.Request("resources/read", "-32602", time.Millisecond)
	tr.Notification("notifications/resources/updated")
	tr.Session(1)
	tr.Session(1)
	tr.Session(-1)
	tr.Stream(1)
	tr.Laggard("write_timeout")

	_, e := scrape(t, s.Registry())
	for _, tt := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"mcpwasm_transport_requests_total", []string{"transport", "stdio", "method", "resources/read", "outcome", "ok"}, 1},
		{"mcpwasm_transport_requests_total", []string{"transport", "stdio", "method", "resources/read", "outcome", "-32602"}, 1},
		{"mcpwasm_transport_request_duration_seconds_count", []string{"transport", "stdio", "method", "resources/read"}, 2},
		{"mcpwasm_transport_notifications_total", []string{"transport", "stdio", "method", "notifications/resources/updated"}, 1},
		{"mcpwasm_transport_sessions", []string{"transport", "stdio"}, 1},
		{"mcpwasm_transport_sessions_total", []string{"transport", "stdio"}, 2},
		{"mcpwasm_transport_streams", []string{"transport", "stdio"}, 1},
		{"mcpwasm_transport_laggards_total", []string{"transport", "stdio", "reason", "write_timeout"}, 1},
	} {
		v, ok := e.Value(tt.name, tt.labels...)
		require.True(t, ok, "%s %v missing", tt.name, tt.labels)
		require.Equal(t, tt.want, v, "%s %v", tt.name, tt.labels)
	}
}

func TestHandlerServesTheExposition(t *testing.T) {
	s := NewSet()
	s.ProviderCall("p", "read", "", time.Millisecond)
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()

	resp, err := http.Get(srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, ContentType, resp.Header.Get("Content-Type"))
	e, err := ParseText(resp.Body)
	require.NoError(t, err)
	require.Equal(t, 1.0, e.Sum("mcpwasm_provider_calls_total"))
	require.Equal(t, "histogram", e.Types["mcpwasm_provider_call_duration_seconds"])

	resp, err = http.Post(srv.URL, "text/plain", nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
}
