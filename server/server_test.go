package server

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

var allRevisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// TestServer_revisions drives every revision with the official go-sdk
// client: the handshake revisions through initialize, 2026-07-28 through
// server/discover and _meta on every request.
func TestServer_revisions(t *testing.T) {
	for _, version := range allRevisions {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, newServer(t, NewConfig().WithProviders(notesProvider())), version)
			requireCapabilities(t, cs, version)
			requireResources(t, cs, version)
			requireCompletions(t, cs)
			_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "x"})
			require.Equal(t, int64(jsonrpc.CodeInvalidParams), rpcError(t, err).Code, "an unknown tool")
		})
	}
}

func requireCapabilities(t *testing.T, cs *mcp.ClientSession, version string) {
	init := cs.InitializeResult()
	require.Equal(t, version, init.ProtocolVersion)
	require.NotNil(t, init.Capabilities.Resources)
	require.True(t, init.Capabilities.Resources.Subscribe, "live resources: server/live_test.go")
	require.True(t, init.Capabilities.Resources.ListChanged)
	require.NotNil(t, init.Capabilities.Completions)
	//lint:ignore SA1019 checking that the deprecated logging capability is not declared
	require.Nil(t, init.Capabilities.Logging)
	require.NotNil(t, init.Capabilities.Tools, "declared, always empty: empty.go")
	require.NotNil(t, init.Capabilities.Prompts, "declared, always empty: empty.go")
	tools, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	require.Empty(t, tools.Tools)
	prompts, err := cs.ListPrompts(t.Context(), nil)
	require.NoError(t, err)
	require.Empty(t, prompts.Prompts)
}

func requireResources(t *testing.T, cs *mcp.ClientSession, version string) {
	ctx := t.Context()
	list, err := cs.ListResources(ctx, nil)
	require.NoError(t, err)
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	require.Equal(t, []string{"notes:///empty", "notes:///hello", "notes:///logo.png", "notes:///styled"}, uris)
	require.Empty(t, list.NextCursor)

	text, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes:///hello"})
	require.NoError(t, err)
	require.Equal(t, "Hello, world", text.Contents[0].Text)
	require.Equal(t, "text/plain", text.Contents[0].MIMEType)
	blob, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes:///logo.png"})
	require.NoError(t, err)
	require.Equal(t, pngBytes, blob.Contents[0].Blob)

	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	require.NoError(t, err)
	require.Len(t, tmpl.ResourceTemplates, 1)
	require.Equal(t, "notes:///items/{id}", tmpl.ResourceTemplates[0].URITemplate)
	item, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes:///items/42"})
	require.NoError(t, err)
	require.JSONEq(t, `{"id":"42"}`, item.Contents[0].Text)

	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes:///missing"})
	werr := rpcError(t, err)
	wantCode := int64(codeResourceNotFound)
	if version == "2026-07-28" {
		wantCode = jsonrpc.CodeInvalidParams
	}
	require.Equal(t, wantCode, werr.Code)
	require.JSONEq(t, `{"uri":"notes:///missing"}`, string(werr.Data))
}

func requireCompletions(t *testing.T, cs *mcp.ClientSession) {
	comp, err := cs.Complete(t.Context(), completeParams("ref/resource", "notes:///items/{id}", "id", "10"))
	require.NoError(t, err)
	require.Equal(t, []string{"100", "101"}, comp.Completion.Values)
	prompt, err := cs.Complete(t.Context(), completeParams("ref/prompt", "test_prompt_with_arguments", "arg1", "test"))
	require.NoError(t, err)
	require.NotNil(t, prompt.Completion.Values)
	require.Empty(t, prompt.Completion.Values)
}

// TestServer_unservedMethods checks that capabilities tell the truth: the
// tools capability is declared with no tool, so a tool call names an
// unknown tool (-32602, as the tools spec has it); prompts/get answers
// -32601.
func TestServer_unservedMethods(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	cs := connect(t, s, "2025-11-25")
	ctx := t.Context()

	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "x"})
	werr := rpcError(t, err)
	require.Equal(t, int64(jsonrpc.CodeInvalidParams), werr.Code)
	require.Contains(t, werr.Message, "resource tools view", "the message says how there could be tools")
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "x"})
	require.Equal(t, int64(jsonrpc.CodeMethodNotFound), rpcError(t, err).Code)
	//lint:ignore SA1019 legacy logging/setLevel is accepted (go-sdk answers it); mcp-wasm logs to stderr
	require.NoError(t, cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}))
	require.NoError(t, cs.Ping(ctx, nil))
}

// TestServer_wireShapes checks the fields go-sdk's own types would get wrong
// and the per-revision fields, on the JSON the client receives.
func TestServer_wireShapes(t *testing.T) {
	tests := []struct {
		version    string
		wantRead   string
		wantStyled string
	}{
		{
			version:    "2025-03-26",
			wantRead:   `{"contents":[{"uri":"notes:///empty","mimeType":"text/plain","text":""}]}`,
			wantStyled: `{"uri":"notes:///styled","name":"styled","mimeType":"text/plain","size":0,"annotations":{"audience":["user"],"priority":0}}`,
		},
		{
			version:    "2025-06-18",
			wantRead:   `{"contents":[{"uri":"notes:///empty","mimeType":"text/plain","text":""}]}`,
			wantStyled: `{"uri":"notes:///styled","name":"styled","title":"Styled note","mimeType":"text/plain","size":0,"annotations":{"audience":["user"],"priority":0,"lastModified":"2026-01-02T03:04:05Z"}}`,
		},
		{
			version:  "2026-07-28",
			wantRead: `{"resultType":"complete","ttlMs":0,"cacheScope":"public","contents":[{"uri":"notes:///empty","mimeType":"text/plain","text":""}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp-wasm-test","version":"0.0.0"}}}`,
			wantStyled: `{"uri":"notes:///styled","name":"styled","title":"Styled note","mimeType":"text/plain","size":0,` +
				`"annotations":{"audience":["user"],"priority":0,"lastModified":"2026-01-02T03:04:05Z"},"icons":[{"src":"https://example.com/i.png","mimeType":"image/png"}]}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.version, func(t *testing.T) {
			tr := newTranscript(t, newServer(t, NewConfig().WithProviders(notesProvider())))
			tr.open(tc.version)
			read := tr.call("resources/read", map[string]any{"uri": "notes:///empty"})
			require.JSONEq(t, tc.wantRead, string(read["result"]))

			list := tr.call("resources/list", nil)
			var res struct {
				Resources []json.RawMessage `json:"resources"`
			}
			require.NoError(t, json.Unmarshal(list["result"], &res))
			require.JSONEq(t, tc.wantStyled, string(res.Resources[3]))
		})
	}
}

// TestServer_hammer runs reads, lists and completions concurrently on one
// connection (run under -race).
func TestServer_hammer(t *testing.T) {
	p := notesProvider().Generate("notes:///gen/", 300, 16).WithPageSize(50)
	cs := connect(t, newServer(t, NewConfig().WithProviders(p).WithPageSize(64)), "2026-07-28")
	workers, iterations := 8, 40
	if testing.Short() {
		iterations = 5
	}
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			var err error
			for i := 0; i < iterations && err == nil; i++ {
				switch (w + i) % 3 {
				case 0:
					_, err = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///hello"})
				case 1:
					err = countResources(cs, 304)
				default:
					_, err = cs.Complete(t.Context(), completeParams("ref/resource", "notes:///items/{id}", "id", "1"))
				}
			}
			errs <- err
		}()
	}
	for range workers {
		require.NoError(t, <-errs)
	}
}

// countResources lists everything and checks the count, without require
// (it runs off the test goroutine).
func countResources(cs *mcp.ClientSession, want int) error {
	n, cursor := 0, ""
	for {
		res, err := cs.ListResources(context.Background(), &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return err
		}
		n += len(res.Resources)
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if n != want {
		return fmt.Errorf("listed %d resources, want %d", n, want)
	}
	return nil
}
