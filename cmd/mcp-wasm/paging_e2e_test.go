package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

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

// TestE2E_LargeTreeWithinClientPageLimit: a 100,000-file tree lists
// completely, each file once, within the 64 pages at which common clients
// stop, with the server's default page size.
// MCPW_LARGE_TREE=N lists N files instead (the measurements in docs/protocol.md).
func TestE2E_LargeTreeWithinClientPageLimit(t *testing.T) {
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
	cs := connect(t, "2026-07-28", "--allow-dir", dir)
	start := time.Now()
	seen, pages, largest, complete := pageStats(t, cs)
	t.Logf("%d files: %d pages, largest page %d bytes of JSON, %v a page", n, pages, largest, time.Since(start)/time.Duration(pages))
	require.True(t, complete, "the listing did not end within %d pages", clientPageLimit)
	require.Len(t, seen, n)
	for uri, c := range seen {
		require.Equal(t, 1, c, uri)
	}
}
