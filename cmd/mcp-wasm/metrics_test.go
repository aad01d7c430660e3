package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/internal/metrics"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/served"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// TestMetricsMoveWithRealGuestCalls wires the metric set into a real
// runtime (the conformance guest in wazero) and a real server over stdio
// framing, makes MCP calls, and reads the counters back through the
// /metrics handler with the strict exposition parser.
func TestMetricsMoveWithRealGuestCalls(t *testing.T) {
	set := metrics.NewSet()
	p := loadObserved(t, set, config.Limits{PoolSize: 3})
	srv, err := server.New(server.NewConfig().WithProviders(serverProviders(p.Providers())...).WithLogger(discardLogger()).WithObserver(set.Transport("stdio")))
	require.NoError(t, err)
	watchSet(set, p)

	lines := []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}
	const reads = 5
	for i := range reads {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"test://static-text"}}`, i+1))
	}
	lines = append(lines,
		`{"jsonrpc":"2.0","id":10,"method":"resources/read","params":{"uri":"test://nonexistent-resource-for-conformance-testing"}}`,
		`{"jsonrpc":"2.0","id":11,"method":"tools/list"}`)
	out := serveLines(t, srv, lines)
	require.Equal(t, reads+3, strings.Count(out, `"id":`), "every request answered: %s", out)

	e := scrapeMetrics(t, set)
	for _, tt := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"mcpwasm_provider_calls_total", []string{"provider", "conformance", "op", "read"}, reads + 1},
		{"mcpwasm_provider_errors_total", []string{"provider", "conformance", "op", "read", "kind", "not_found"}, 1},
		{"mcpwasm_provider_call_duration_seconds_count", []string{"provider", "conformance", "op", "read"}, reads + 1},
		{"mcpwasm_provider_pool_wait_seconds_count", []string{"provider", "conformance"}, reads + 1},
		{"mcpwasm_provider_pool_size", []string{"provider", "conformance"}, 3},
		{"mcpwasm_provider_quarantined", []string{"provider", "conformance"}, 0},
		{"mcpwasm_transport_requests_total", []string{"transport", "stdio", "method", "resources/read", "outcome", "ok"}, reads},
		{"mcpwasm_transport_requests_total", []string{"transport", "stdio", "method", "resources/read", "outcome", "-32002"}, 1},
		{"mcpwasm_transport_requests_total", []string{"transport", "stdio", "method", "initialize", "outcome", "ok"}, 1},
		{"mcpwasm_transport_sessions_total", []string{"transport", "stdio"}, 1},
	} {
		v, ok := e.Value(tt.name, tt.labels...)
		require.True(t, ok, "%s %v missing", tt.name, tt.labels)
		require.Equal(t, tt.want, v, "%s %v", tt.name, tt.labels)
	}
	live, _ := e.Value("mcpwasm_provider_pool_instances", "provider", "conformance")
	require.GreaterOrEqual(t, live, 1.0)
	mem, _ := e.Value("mcpwasm_provider_memory_high_water_bytes", "provider", "conformance")
	require.Greater(t, mem, 0.0, "a Go guest's memory is at least a few pages")
	require.Equal(t, 1.0, e.Sum("mcpwasm_transport_requests_total", "method", "tools/list"), "refused methods are counted too")
}

// TestMetricsOverHTTP serves the conformance guest over Streamable HTTP
// with withMetrics, makes a 2026-07-28 read and a refused request, and
// scrapes /metrics from the same handler.
func TestMetricsOverHTTP(t *testing.T) {
	ctx := context.WithoutCancel(t.Context())
	set := metrics.NewSet()
	p := loadObserved(t, set, config.Limits{})
	srv, err := server.New(server.NewConfig().WithProviders(serverProviders(p.Providers())...).WithLogger(discardLogger()).WithObserver(set.Transport("http")))
	require.NoError(t, err)
	watchSet(set, p)
	h, err := srv.HTTPHandler(withMetrics(server.NewHTTPConfig(), set))
	require.NoError(t, err)
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)

	read := func(origin string) int {
		body := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://static-text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL+server.MCPPath, strings.NewReader(body))
		require.NoError(t, err)
		for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "resources/read", "Mcp-Name": "test://static-text"} {
			req.Header.Set(k, v)
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			require.Contains(t, string(b), "static text resource")
		}
		return resp.StatusCode
	}
	require.Equal(t, http.StatusOK, read(""))
	require.Equal(t, http.StatusOK, read(""))
	require.Equal(t, http.StatusForbidden, read("https://evil.example"))

	resp, err := http.Get(hs.URL + metricsPath)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, metrics.ContentType, resp.Header.Get("Content-Type"))
	e, err := metrics.ParseText(resp.Body)
	require.NoError(t, err)
	for _, tt := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"mcpwasm_http_responses_total", []string{"code", "200"}, 2},
		{"mcpwasm_http_responses_total", []string{"code", "403"}, 1},
		{"mcpwasm_transport_requests_total", []string{"transport", "http", "method", "resources/read", "outcome", "ok"}, 2},
		{"mcpwasm_provider_calls_total", []string{"provider", "conformance", "op", "read"}, 2},
	} {
		v, ok := e.Value(tt.name, tt.labels...)
		require.True(t, ok, "%s %v missing", tt.name, tt.labels)
		require.Equal(t, tt.want, v, "%s %v", tt.name, tt.labels)
	}
	_, ok := e.Value("mcpwasm_http_responses_total", "code", "200")
	require.True(t, ok, "the scrape itself is not an /mcp response and is not counted")
}

// loadObserved serves the conformance guest with limits through a served
// set, in a runtime observed by m, with the e2e tests' compilation cache.
func loadObserved(t *testing.T, m *metrics.Set, limits config.Limits) *served.Set {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	rt, err := runtime.New(ctx, runtime.NewConfig().WithObserver(m).WithReadCache(0). // count every read as a guest call
												WithCacheDir(testguest.CompileCache()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(ctx) })
	cfg := patientConfig(&config.Config{Providers: []config.Provider{{Module: config.ModuleRef(testguest.Go(t, "guests/conformance")), Limits: limits}}})
	loader := served.NewLoader(rt, served.ResolveFile, nil)
	g, err := loader.Load(ctx, cfg)
	require.NoError(t, err)
	set := served.NewSet(loader, g, served.SetOptions{})
	t.Cleanup(func() { set.Close(ctx) })
	return set
}

// serveLines serves one stdio connection fed with lines and returns what
// the server wrote.
func serveLines(t *testing.T, srv *server.Server, lines []string) string {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(context.Background(), inR, outW); _ = outW.Close() }()
	go func() {
		for _, l := range lines {
			_, _ = io.WriteString(inW, l+"\n")
		}
		_ = inW.Close()
	}()
	var b strings.Builder
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		b.WriteString(sc.Text() + "\n")
	}
	require.NoError(t, <-done)
	return b.String()
}

func scrapeMetrics(t *testing.T, set *metrics.Set) *metrics.Exposition {
	t.Helper()
	hs := httptest.NewServer(set.Handler())
	defer hs.Close()
	resp, err := http.Get(hs.URL + metricsPath)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	e, err := metrics.ParseText(resp.Body)
	require.NoError(t, err)
	return e
}
