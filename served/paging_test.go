package served

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/internal/testlog"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// These tests list real guests through the real server, in process, as
// `mcp-wasm serve` wires them (they were end-to-end tests of the binary,
// which added only its start-up to what they test). They run in parallel
// with each other and the package's other parallel tests: most of their
// time is waiting for a compile or the file system.

// serveConfig serves the config text (written as mcp.json beside copies
// of testdata's minimal.wasm and good.wasm) with the server configured by
// sc, to a go-sdk client speaking revision; the log goes to logs.
func serveConfig(t *testing.T, text, revision string, sc server.Config, logs *testlog.Buffer) *mcp.ClientSession {
	t.Helper()
	cfg, err := readConfig(testkit.WriteConfig(t, text))
	require.NoError(t, err)
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	gen, err := NewLoader(newTestRuntime(t), ResolveFile, log).Load(t.Context(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { gen.Close(context.WithoutCancel(t.Context())) })
	srv, err := server.New(sc.WithProviders(serverProviders(gen.Providers())...).WithLogger(log).WithCallTimeout(cfg.MaxTimeout() + time.Second))
	require.NoError(t, err)
	return serveInProcess(t, srv, revision, nil)
}

// clientPageLimit is where the TypeScript SDK v2's listResources() and the
// Inspector stop following nextCursor.
const clientPageLimit = 64

// largeTree makes n empty files under dir, spread over 100 directories,
// named like a source tree's (d07/f012345.txt).
func largeTree(t testing.TB, n int) string {
	t.Helper()
	dir := t.TempDir()
	for d := range 100 {
		require.NoError(t, os.Mkdir(filepath.Join(dir, fmt.Sprintf("d%02d", d)), 0o755))
	}
	for i := range n {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("d%02d", i%100), fmt.Sprintf("f%06d.txt", i)))
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	return dir
}

// pageStats lists every resource of cs, as a client that gives up after
// clientPageLimit pages, and returns the URIs seen, the pages used and the
// largest page's JSON size.
func pageStats(t testing.TB, cs *mcp.ClientSession) (seen map[string]int, pages, largest int, complete bool) {
	t.Helper()
	seen = map[string]int{}
	cursor := ""
	for pages < clientPageLimit {
		res, err := cs.ListResources(context.Background(), &mcp.ListResourcesParams{Cursor: cursor})
		require.NoError(t, err)
		pages++
		b, err := json.Marshal(res)
		require.NoError(t, err)
		largest = max(largest, len(b))
		for _, r := range res.Resources {
			seen[r.URI]++
		}
		if res.NextCursor == "" {
			return seen, pages, largest, true
		}
		cursor = res.NextCursor
	}
	return seen, pages, largest, false
}

// TestLargeTreeWithinClientPageLimit: a 100,000-file tree served by the
// built-in files provider (guests/cfiles, which the binary embeds) lists
// completely, each file once, within the 64 pages at which common clients
// stop, with the server's default page size.
// MCPW_LARGE_TREE=N lists N files instead (the measurements in docs/protocol.md).
func TestLargeTreeWithinClientPageLimit(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("100,000 files")
	}
	n := 100_000
	if v := os.Getenv("MCPW_LARGE_TREE"); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(t, err)
	}
	dir := largeTree(t, n)
	cfiles := testguest.C(t, "cfiles", "guests/c/mcpw.c", "guests/cfiles/cfiles.c")
	cs := serveConfig(t, fmt.Sprintf(`{"providers": [{"module": %q, "grants": {"dirs": [{"host": %q}]}}]}`, cfiles, dir),
		"2026-07-28", server.NewConfig(), &testlog.Buffer{})
	start := time.Now()
	seen, pages, largest, complete := pageStats(t, cs)
	t.Logf("%d files: %d pages, largest page %d bytes of JSON, %v a page", n, pages, largest, time.Since(start)/time.Duration(pages))
	require.True(t, complete, "the listing did not end within %d pages", clientPageLimit)
	require.Len(t, seen, n)
	for uri, c := range seen {
		require.Equal(t, 1, c, uri)
	}
}

// TestCursorCycleWasm: a real guest whose list cursors cycle (a, b, a, ...;
// server/testdata/cycle.wat) is listed once and skipped with a log line,
// and the provider after it is listed, whether its pages fill client pages
// or cross them.
func TestCursorCycleWasm(t *testing.T) {
	t.Parallel()
	cycle := filepath.Join(testguest.Root(), "server", "testdata", "cycle.wasm")
	notes := testguest.Go(t, "guests/notes")
	for _, pageSize := range []int{1, 500} {
		t.Run("page "+strconv.Itoa(pageSize), func(t *testing.T) {
			logs := &testlog.Buffer{}
			cs := serveConfig(t, fmt.Sprintf(`{"providers": [{"module": %q}, {"module": %q}]}`, cycle, notes),
				"2025-11-25", server.NewConfig().WithPageSize(pageSize), logs)
			seen := map[string]int{}
			for r, err := range cs.Resources(t.Context(), nil) {
				require.NoError(t, err)
				seen[r.URI]++
			}
			for _, uri := range []string{"cycle:first", "cycle:a", "cycle:b"} {
				require.Equal(t, 1, seen[uri], uri)
			}
			require.Contains(t, seen, "notes:///uri-space", "the provider after the cycle is listed")
			// The log line may be written after the page reached the client.
			testkit.Eventually(t, func() bool {
				return strings.Contains(logs.String(), "(a cycle)") && strings.Contains(logs.String(), "provider=cycle")
			}, "the cycle is logged")
		})
	}
}

// TestPagination: 10,001 files through the built-in files provider come
// back exactly once each across pages, on both protocol eras.
func TestPagination(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("10,001 files")
	}
	dir := t.TempDir()
	const n = 10001
	for i := range n {
		sub := filepath.Join(dir, fmt.Sprintf("d%02d", i%37))
		require.NoError(t, os.MkdirAll(sub, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%05d.txt", i)), nil, 0o644))
	}
	cfiles := testguest.C(t, "cfiles", "guests/c/mcpw.c", "guests/cfiles/cfiles.c")
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) {
			cs := serveConfig(t, fmt.Sprintf(`{"providers": [{"module": %q, "grants": {"dirs": [{"host": %q}]}}]}`, cfiles, dir),
				rev, server.NewConfig(), &testlog.Buffer{})
			seen := map[string]int{}
			for r, err := range cs.Resources(t.Context(), nil) {
				require.NoError(t, err)
				seen[r.URI]++
			}
			require.Len(t, seen, n)
			for uri, c := range seen {
				require.Equal(t, 1, c, uri)
			}
		})
	}
}
