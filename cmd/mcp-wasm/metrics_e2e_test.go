package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/metrics"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// TestE2E_HTTP_metrics: the real binary serves /metrics beside /mcp; after
// reads from clients of both eras the counters show the calls, the
// provider's gauges are there, and the exposition parses strictly.
func TestE2E_HTTP_metrics(t *testing.T) {
	srv := startHTTP(t, nil, "--module", testguest.Go(t, "guests/conformance"), "--pool-size", "2")
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		cs := connectURL(t, srv.url, rev, nil)
		for i := range 3 { // distinct URIs: a 2026-07-28 client caches reads for their ttlMs
			_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: fmt.Sprintf("test://template/%d/data", i)})
			require.NoError(t, err)
		}
		_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "test://nonexistent-resource-for-conformance-testing"})
		require.Error(t, err)
	}

	resp, err := http.Get(strings.TrimSuffix(srv.url, "/mcp") + metricsPath)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	e, err := metrics.ParseText(resp.Body)
	require.NoError(t, err)

	// The second client's three reads are answered by the read cache (the
	// conformance provider's hint is public): five reads ran the guest.
	calls, _ := e.Value("mcpwasm_provider_calls_total", "provider", "conformance", "op", "read")
	require.Equal(t, 5.0, calls)
	hits, _ := e.Value("mcpwasm_provider_read_cache_hits_total", "provider", "conformance")
	require.Equal(t, 3.0, hits)
	misses, _ := e.Value("mcpwasm_provider_read_cache_misses_total", "provider", "conformance")
	require.Equal(t, 5.0, misses)
	cached, _ := e.Value("mcpwasm_read_cache_bytes")
	require.Greater(t, cached, 0.0)
	notFound, _ := e.Value("mcpwasm_provider_errors_total", "provider", "conformance", "op", "read", "kind", "not_found")
	require.Equal(t, 2.0, notFound)
	size, _ := e.Value("mcpwasm_provider_pool_size", "provider", "conformance")
	require.Equal(t, 2.0, size)
	require.Equal(t, 6.0, e.Sum("mcpwasm_transport_requests_total", "transport", "http", "method", "resources/read", "outcome", "ok"))
	require.Equal(t, 1.0, e.Sum("mcpwasm_transport_sessions_total", "transport", "http"), "one legacy session")
	require.Greater(t, e.Sum("mcpwasm_http_responses_total", "code", "200"), 0.0)
	mem, _ := e.Value("mcpwasm_provider_memory_high_water_bytes", "provider", "conformance")
	require.Greater(t, mem, 0.0)
}

// TestE2E_HTTP_metricsWithConfig: with --config, the per-provider gauges
// (pool, memory, quarantine) are on /metrics exactly as with --module: a
// provider from a config file is the same kind of served provider, and
// metrics follow the served set, not a guess at its type.
func TestE2E_HTTP_metricsWithConfig(t *testing.T) {
	path := testkit.WriteConfig(t, `{"providers": [{"module": "good.wasm", "limits": {"poolSize": 3}}]}`)
	srv := startHTTP(t, nil, "--config", path)
	cs := connectURL(t, srv.url, "2025-11-25", nil)
	_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "evil:good"})
	require.NoError(t, err)

	resp, err := http.Get(strings.TrimSuffix(srv.url, "/mcp") + metricsPath)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	e, err := metrics.ParseText(resp.Body)
	require.NoError(t, err)
	for _, tt := range []struct {
		name string
		want float64
	}{
		{"mcpwasm_provider_pool_size", 3},
		{"mcpwasm_provider_pool_instances", 1},
		{"mcpwasm_provider_quarantined", 0},
		{"mcpwasm_provider_quarantines_total", 0},
		{"mcpwasm_provider_instantiations_total", 1},
	} {
		v, ok := e.Value(tt.name, "provider", "evil")
		require.True(t, ok, "%s{provider=\"evil\"} missing from /metrics with --config", tt.name)
		require.Equal(t, tt.want, v, tt.name)
	}
	mem, ok := e.Value("mcpwasm_provider_memory_high_water_bytes", "provider", "evil")
	require.True(t, ok, "memory high water missing with --config")
	require.Equal(t, 65536.0, mem, "good.wasm has one page")
	calls, _ := e.Value("mcpwasm_provider_calls_total", "provider", "evil", "op", "read")
	require.Equal(t, 1.0, calls)
}
