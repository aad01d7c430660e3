package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// TestE2E_resourceTools: `serve --resource-tools` offers the resources of
// the real files provider as tools, which the official client lists and
// calls over stdio and HTTP on every revision; without the flag there are
// no tools.
func TestE2E_resourceTools(t *testing.T) {
	dir := filesTree(t)
	srv := startHTTP(t, nil, "--allow-dir", dir, "--resource-tools", "--log-level", "warn")
	for _, rev := range revisions {
		for _, tr := range []string{"stdio", "http"} {
			t.Run(tr+"/"+rev, func(t *testing.T) {
				var cs *mcp.ClientSession
				if tr == "stdio" {
					cs = connect(t, rev, "--allow-dir", dir, "--resource-tools")
				} else {
					cs = connectURL(t, srv.url, rev, nil)
				}
				tools, err := cs.ListTools(t.Context(), nil)
				require.NoError(t, err)
				require.Len(t, tools.Tools, 4)

				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_resources", Arguments: map[string]any{"uriPrefix": uriIn(t, dir, "docs/")}})
				require.NoError(t, err)
				require.False(t, res.IsError)
				var page struct {
					Resources []struct{ URI, Provider string }
				}
				require.NoError(t, json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &page))
				var uris []string
				for _, r := range page.Resources {
					uris = append(uris, r.URI)
					require.Equal(t, "files", r.Provider)
				}
				require.ElementsMatch(t, []string{uriIn(t, dir, "docs/guide.md"), uriIn(t, dir, "docs/%C3%BCn%C3%AF%20c%C3%B8d%C3%A9.txt")}, uris)

				res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "read_resource", Arguments: map[string]any{"uri": uriIn(t, dir, "hello.txt")}})
				require.NoError(t, err)
				require.Equal(t, "hello, world\n", res.Content[0].(*mcp.TextContent).Text)

				res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "read_resource", Arguments: map[string]any{"uri": uriIn(t, dir, "img/pixel.png")}})
				require.NoError(t, err)
				img, ok := res.Content[0].(*mcp.ImageContent)
				require.True(t, ok, "a PNG is image content, got %T", res.Content[0])
				require.Equal(t, "image/png", img.MIMEType)

				res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "read_resource", Arguments: map[string]any{"uri": uriIn(t, dir, ".hidden")}})
				require.NoError(t, err, "a not-found is a tool error result, not a protocol error")
				require.True(t, res.IsError)
				require.True(t, strings.HasPrefix(res.Content[0].(*mcp.TextContent).Text, "resource not found: "+uriIn(t, dir, ".hidden")))
			})
		}
	}
	cs := connect(t, "2025-11-25", "--allow-dir", dir)
	tools, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	require.Empty(t, tools.Tools, "no tools without --resource-tools")
}
