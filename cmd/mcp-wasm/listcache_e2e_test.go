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
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// TestE2E_listCache: `serve --http` with the default provider, listed by a
// go-sdk client. Repeated listings of an unchanged tree do not call the
// guest (mcpwasm_provider_calls_total for list stays put); a file added on
// disk is in the first listing after notifications/resources/list_changed;
// a hidden file's (which the provider does not list) drops the cache too.
func TestE2E_listCache(t *testing.T) {
	dir := liveTree(t)
	srv := startHTTP(t, nil, "--allow-dir", dir)
	client, h := liveClient()
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: srv.url, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	// scrape reads the list calls and the list cache's size. It asserts
	// nothing: it runs inside Eventually's goroutine, where a failed
	// require would end that goroutine and leave the wait to time out.
	scrape := func() (calls, cached float64, err error) {
		resp, err := http.Get(strings.TrimSuffix(srv.url, "/mcp") + metricsPath)
		if err != nil {
			return 0, 0, err
		}
		defer resp.Body.Close()
		e, err := metrics.ParseText(resp.Body)
		if err != nil {
			return 0, 0, err
		}
		cached, _ = e.Value("mcpwasm_list_cache_bytes")
		calls, _ = e.Value("mcpwasm_provider_calls_total", "provider", "files", "op", "list")
		return calls, cached, nil
	}
	// listCalls is scrape on the test's goroutine, where nothing on disk
	// is changing, so the listing just made is in the cache.
	listCalls := func() float64 {
		calls, cached, err := scrape()
		require.NoError(t, err)
		require.Positive(t, cached, "the list cache holds the listing")
		return calls
	}
	list := func() []string {
		res, err := cs.ListResources(t.Context(), nil)
		require.NoError(t, err)
		var out []string
		for _, r := range res.Resources {
			out = append(out, r.URI)
		}
		return out
	}

	require.ElementsMatch(t, []string{uriIn(t, dir, "a.txt"), uriIn(t, dir, "b.txt")}, list())
	calls := listCalls()
	require.Positive(t, calls)
	for range 3 {
		require.Len(t, list(), 2)
	}
	require.Equal(t, calls, listCalls(), "the provider is not called for an unchanged tree")

	lists := h.listChanges()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "c.txt"), []byte("new"), 0o644))
	testkit.Eventually(t, func() bool { return h.listChanges() > lists }, "adding a file: list_changed")
	require.Contains(t, list(), uriIn(t, dir, "c.txt"), "the first listing after the change has the new file")
	require.Greater(t, listCalls(), calls)

	// A file the provider does not list (hidden) changes no listing, but
	// the host's watch saw it: the cached pages are dropped all the same.
	list()
	calls = listCalls()
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".hidden"), []byte("x"), 0o644))
	// The event may land between a listing and the scrape, leaving the
	// cache empty at that moment: the condition counts calls only.
	testkit.Eventually(t, func() bool {
		if _, err := cs.ListResources(t.Context(), nil); err != nil {
			return false
		}
		now, _, err := scrape()
		return err == nil && now > calls
	}, "the watch's event drops the cached pages")
}
