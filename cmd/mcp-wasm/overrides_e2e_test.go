package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/metrics"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// TestE2E_operatorOverrides: what the operator overrides in the config
// file (name, cache, limits, expose) is what every layer reads, through
// the real binary, a go-sdk client over HTTP and /metrics. Two copies of
// the files module are served as "docs" and "notes"; good.wasm, whose
// describe has no cache hint, is given one. A layer that read the
// module's own value would count the calls as provider="files", keep the
// private read in the host cache, or not cache the hinted one.
func TestE2E_operatorOverrides(t *testing.T) {
	files := testguest.Go(t, "guests/files")
	path := testkit.WriteConfig(t, `{"providers": [
  {"module": "`+files+`", "name": "docs", "schemePrefix": "docs", "cache": {"ttl": "1h", "scope": "private"},
   "limits": {"poolSize": 2}, "expose": {"exclude": ["docs+file:///data/hidden.txt"]},
   "grants": {"dirs": [{"host": "docs", "guest": "/data"}]}},
  {"module": "`+files+`", "name": "notes", "schemePrefix": "notes", "limits": {"poolSize": 3},
   "grants": {"dirs": [{"host": "notes", "guest": "/data"}]}},
  {"module": "good.wasm", "name": "plain", "cache": {"ttl": "1h", "scope": "public"}}
]}`)
	dir := filepath.Dir(path)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "docs", "guide.md"), []byte("in docs"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "docs", "hidden.txt"), []byte("hidden"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "notes"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes", "todo.md"), []byte("in notes"), 0o644))

	srv := startHTTP(t, nil, "--config", path)
	cs := connectURL(t, srv.url, "2025-11-25", nil)
	read := func(uri string) (*mcp.ReadResourceResult, error) {
		return cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
	}
	for _, uri := range []string{"docs+file:///data/guide.md", "docs+file:///data/guide.md", "notes+file:///data/todo.md", "evil:good", "evil:good"} {
		_, err := read(uri)
		require.NoError(t, err, uri)
	}
	_, err := read("docs+file:///data/hidden.txt")
	require.Error(t, err, "expose hides it from clients")
	var listed []string
	for _, r := range listAll(t, cs) {
		listed = append(listed, r.URI)
	}
	require.ElementsMatch(t, []string{"docs+file:///data/guide.md", "notes+file:///data/todo.md", "evil:good"}, listed)

	e := scrape(t, srv)
	for _, tt := range []struct {
		family, provider string
		want             float64
	}{
		// name: every per-call family is under the operator's name; the
		// hidden read never reached the guest.
		{"mcpwasm_provider_calls_total", "files", 0},
		{"mcpwasm_provider_call_duration_seconds_count", "files", 0},
		{"mcpwasm_provider_pool_wait_seconds_count", "files", 0},
		// cache: docs is private (the module says public), so the host
		// cache never answers it; plain is public for an hour (the
		// module gives no hint), so its second read is a hit.
		{"mcpwasm_provider_read_cache_hits_total", "docs", 0},
		{"mcpwasm_provider_read_cache_misses_total", "docs", 2},
		{"mcpwasm_provider_read_cache_hits_total", "plain", 1},
		// limits: each copy has its own pool, under its own name.
		{"mcpwasm_provider_pool_size", "docs", 2},
		{"mcpwasm_provider_pool_size", "notes", 3},
	} {
		require.Equal(t, tt.want, e.Sum(tt.family, "provider", tt.provider), "%s{provider=%q}", tt.family, tt.provider)
	}
	for provider, reads := range map[string]float64{"docs": 2, "notes": 1} {
		require.Equal(t, reads, e.Sum("mcpwasm_provider_calls_total", "provider", provider, "op", "read"), provider)
		require.Equal(t, 1.0, e.Sum("mcpwasm_provider_calls_total", "provider", provider, "op", "list"), provider)
	}
	require.Positive(t, e.Sum("mcpwasm_provider_pool_wait_seconds_count", "provider", "docs"))
	require.Positive(t, e.Sum("mcpwasm_provider_call_duration_seconds_count", "provider", "notes"))
	require.NotContains(t, srv.logs(), `provider=files`)
}

// scrape reads and strictly parses srv's /metrics.
func scrape(t *testing.T, srv *httpServer) *metrics.Exposition {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(srv.url, "/mcp") + metricsPath)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	e, err := metrics.ParseText(resp.Body)
	require.NoError(t, err)
	return e
}
