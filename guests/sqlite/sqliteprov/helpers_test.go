package sqliteprov

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
	"github.com/mcp-wasm/mcp-wasm/guests/sqlite/internal/sqlitetest"
)

// makeDB makes dir/name with script and returns its path.
func makeDB(t testing.TB, dir, name, script string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	sqlitetest.Run(t, p, script)
	return p
}

// host grants config values to native calls.
func host(values map[string]string) context.Context {
	return mcpw.WithHost(context.Background(), &mcpw.MapHost{Values: values})
}

// read reads uri and returns its only content's text.
func read(t testing.TB, ctx context.Context, p mcpw.Provider, uri string) string {
	t.Helper()
	res, err := p.(mcpw.Reader).Read(ctx, uri)
	require.NoError(t, err, uri)
	require.Len(t, res.Contents, 1)
	return *res.Contents[0].Text
}

// readJSON reads uri and decodes its JSON into v.
func readJSON(t testing.TB, ctx context.Context, p mcpw.Provider, uri string, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal([]byte(read(t, ctx, p, uri)), v), uri)
}

// listAll pages through the whole listing.
func listAll(t testing.TB, ctx context.Context, p mcpw.Provider) []abi.Resource {
	t.Helper()
	var all []abi.Resource
	cursor := ""
	for {
		page, err := p.(mcpw.Lister).List(ctx, cursor)
		require.NoError(t, err)
		all = append(all, page.Resources...)
		if page.NextCursor == "" {
			return all
		}
		cursor = page.NextCursor
	}
}
