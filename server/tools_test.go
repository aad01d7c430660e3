package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// toolRevisions are the revisions the tools view is tested on.
var toolRevisions = []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// toolsFixture serves the notes fixture plus audio, an opaque blob with
// annotations and a hidden resource, behind a filter, and a second
// provider, with the resource tools view on.
func toolsFixture(t testing.TB) Config {
	t.Helper()
	when := "2026-05-06T07:08:09Z"
	octets := "AAEC"
	notes := notesProvider().
		AddBlob("notes:///chime.wav", "audio/wav", []byte("RIFF....WAVE")).
		AddResource(abi.Resource{URI: "notes:///data.bin", Name: "data.bin", MIMEType: "application/octet-stream"},
			abi.Content{URI: "notes:///data.bin", MIMEType: "application/octet-stream", Blob: &octets,
				Annotations: &abi.Annotations{LastModified: when, Audience: []string{"assistant"}}}).
		AddText("notes:///private/key", "text/plain", "hidden")
	other := newFuncProvider("other", "other")
	other.list = func(_ context.Context, _ string) (*abi.ListResult, error) {
		return &abi.ListResult{Resources: []abi.Resource{{URI: "other:///x", Name: "x"}}}, nil
	}
	return NewConfig().WithResourceTools(true).WithProviders(
		WithURIFilter(notes, mustFilter(t, nil, []string{"notes:///private/**"})), other)
}

// call calls a tool and returns its result, failing on a protocol error.
func call(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "%s %v", name, args)
	return res
}

// textOf is the text of a result's only text block.
func textOf(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	require.Len(t, res.Content, 1)
	tc, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "a text block, got %T", res.Content[0])
	return tc.Text
}

// dataOf decodes what a data tool returned: its text block (every
// revision) must hold the same JSON as its structured output (from
// 2025-06-18 on; none before).
func dataOf(t testing.TB, res *mcp.CallToolResult, version string, into any) {
	t.Helper()
	require.False(t, res.IsError, textOf(t, res))
	text := textOf(t, res)
	require.NoError(t, json.Unmarshal([]byte(text), into))
	if version < "2025-06-18" {
		require.Nil(t, res.StructuredContent, "no structured output before 2025-06-18")
		return
	}
	structured, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.JSONEq(t, text, string(structured), "structured output and its text agree")
}

// TestResourceTools_list: tools/list holds the four tools, with what each
// revision defines, and nothing when the view is off.
func TestResourceTools_list(t *testing.T) {
	for _, tr := range transports {
		for _, version := range toolRevisions {
			t.Run(tr.name+"/"+version, func(t *testing.T) {
				cs := tr.connect(t, newServer(t, toolsFixture(t)), version)
				caps := cs.InitializeResult().Capabilities
				require.NotNil(t, caps.Tools)
				require.False(t, caps.Tools.ListChanged, "the view never changes")
				res, err := cs.ListTools(t.Context(), nil)
				require.NoError(t, err)
				names := map[string]*mcp.Tool{}
				for _, tool := range res.Tools {
					names[tool.Name] = tool
					require.NotEmpty(t, tool.Description)
					require.True(t, tool.Annotations.ReadOnlyHint)
					schema, ok := tool.InputSchema.(map[string]any)
					require.True(t, ok)
					require.Equal(t, "object", schema["type"])
					if version < "2025-06-18" {
						require.Empty(t, tool.Title)
						require.Nil(t, tool.OutputSchema)
					} else {
						require.NotEmpty(t, tool.Title)
					}
				}
				require.Len(t, names, 4)
				for _, n := range []string{"list_resources", "list_resource_templates", "read_resource", "complete_resource_argument"} {
					require.Contains(t, names, n)
				}
				if version >= "2025-06-18" {
					require.NotNil(t, names["list_resources"].OutputSchema)
					require.Nil(t, names["read_resource"].OutputSchema, "a read returns contents, not data")
				}

				off := tr.connect(t, newServer(t, NewConfig().WithProviders(notesProvider())), version)
				res, err = off.ListTools(t.Context(), nil)
				require.NoError(t, err)
				require.Empty(t, res.Tools)
				_, err = off.CallTool(t.Context(), &mcp.CallToolParams{Name: "read_resource", Arguments: map[string]any{"uri": "notes:///hello"}})
				require.Equal(t, int64(jsonrpc.CodeInvalidParams), rpcError(t, err).Code, "no tools when the view is off")
			})
		}
	}
}

// TestResourceTools_listResources: the list tools page through the same
// merged, filtered list as resources/list, narrowed by provider or URI
// prefix, with cursors that belong to their own listing.
func TestResourceTools_listResources(t *testing.T) {
	for _, tr := range transports {
		for _, version := range toolRevisions {
			t.Run(tr.name+"/"+version, func(t *testing.T) {
				s := newServer(t, toolsFixture(t))
				cs := tr.connect(t, s, version)
				var want []string
				for uri := range strings.SplitSeq("notes:///chime.wav notes:///data.bin notes:///empty notes:///hello notes:///logo.png notes:///styled other:///x", " ") {
					want = append(want, uri)
				}
				var got []string
				providers := map[string]string{}
				cursor := ""
				for pages := 0; ; pages++ {
					require.Less(t, pages, 10)
					args := map[string]any{"limit": 2}
					if cursor != "" {
						args["cursor"] = cursor
					}
					var page struct {
						Resources []struct {
							URI, Name, Provider string
							Title               string `json:"title"`
						}
						NextCursor string
					}
					dataOf(t, call(t, cs, "list_resources", args), version, &page)
					require.LessOrEqual(t, len(page.Resources), 2)
					for _, r := range page.Resources {
						got = append(got, r.URI)
						providers[r.URI] = r.Provider
						if r.URI == "notes:///styled" && version < "2025-06-18" {
							require.Empty(t, r.Title, "shaped for the revision")
						}
					}
					if cursor = page.NextCursor; cursor == "" {
						break
					}
				}
				require.Equal(t, want, got, "the hidden resource is left out, every other listed once")
				require.Equal(t, "other", providers["other:///x"])
				require.Equal(t, "notes", providers["notes:///hello"])

				var page struct{ Resources []struct{ URI string } }
				dataOf(t, call(t, cs, "list_resources", map[string]any{"uriPrefix": "NOTES:///d"}), version, &page)
				require.Len(t, page.Resources, 1)
				require.Equal(t, "notes:///data.bin", page.Resources[0].URI)
				dataOf(t, call(t, cs, "list_resources", map[string]any{"provider": "other"}), version, &page)
				require.Len(t, page.Resources, 1)
				require.Equal(t, "other:///x", page.Resources[0].URI)

				res := call(t, cs, "list_resources", map[string]any{"provider": "nope"})
				require.True(t, res.IsError)
				require.Contains(t, textOf(t, res), `no provider is named "nope"`)
				first := call(t, cs, "list_resources", map[string]any{"limit": 1})
				var p1 struct{ NextCursor string }
				dataOf(t, first, version, &p1)
				res = call(t, cs, "list_resources", map[string]any{"cursor": p1.NextCursor, "uriPrefix": "notes:"})
				require.True(t, res.IsError, "a cursor resumes only its own listing")
				require.Contains(t, textOf(t, res), "list again without a cursor")

				var tmpl struct {
					ResourceTemplates []struct{ URITemplate, Provider string }
				}
				dataOf(t, call(t, cs, "list_resource_templates", nil), version, &tmpl)
				require.Len(t, tmpl.ResourceTemplates, 1)
				require.Equal(t, "notes:///items/{id}", tmpl.ResourceTemplates[0].URITemplate)
				require.Equal(t, "notes", tmpl.ResourceTemplates[0].Provider)
			})
		}
	}
}

// TestResourceTools_read: read_resource returns every content in the tool
// content type MCP has for it (text; image and audio by MIME type; other
// binary as an embedded resource with its URI), with the provider's
// annotations as the revision defines them, and failures as tool error
// results: not found (also for a hidden resource) and an invalid URI.
func TestResourceTools_read(t *testing.T) {
	for _, tr := range transports {
		for _, version := range toolRevisions {
			t.Run(tr.name+"/"+version, func(t *testing.T) {
				cs := tr.connect(t, newServer(t, toolsFixture(t)), version)
				read := func(uri string) *mcp.CallToolResult {
					return call(t, cs, "read_resource", map[string]any{"uri": uri})
				}
				require.Equal(t, "Hello, world", textOf(t, read("notes:///hello")))
				require.Equal(t, "", textOf(t, read("notes:///empty")), "an empty text is a text")

				img, ok := read("notes:///logo.png").Content[0].(*mcp.ImageContent)
				require.True(t, ok)
				require.Equal(t, pngBytes, img.Data)
				require.Equal(t, "image/png", img.MIMEType)

				audio, ok := read("notes:///chime.wav").Content[0].(*mcp.AudioContent)
				require.True(t, ok)
				require.Equal(t, []byte("RIFF....WAVE"), audio.Data)

				emb, ok := read("notes:///data.bin").Content[0].(*mcp.EmbeddedResource)
				require.True(t, ok, "other binary is an embedded resource")
				require.Equal(t, "notes:///data.bin", emb.Resource.URI)
				require.Equal(t, []byte{0, 1, 2}, emb.Resource.Blob)
				require.Equal(t, []mcp.Role{"assistant"}, emb.Annotations.Audience)
				if version < "2025-06-18" {
					require.Empty(t, emb.Annotations.LastModified)
				} else {
					require.Equal(t, "2026-05-06T07:08:09Z", emb.Annotations.LastModified)
				}

				for _, missing := range []string{"notes:///missing", "notes:///private/key", "unknown:///x"} {
					res := read(missing)
					require.True(t, res.IsError, "%s: a tool error, not a protocol error", missing)
					require.Contains(t, textOf(t, res), "resource not found: "+missing)
				}
				res := read("notes:///a/../private/key")
				require.True(t, res.IsError)
				require.Contains(t, textOf(t, res), "invalid uri")

				var comp struct{ Values []string }
				dataOf(t, call(t, cs, "complete_resource_argument",
					map[string]any{"uriTemplate": "notes:///items/{id}", "argument": "id", "value": "10"}), version, &comp)
				require.Equal(t, []string{"100", "101"}, comp.Values)
				dataOf(t, call(t, cs, "complete_resource_argument",
					map[string]any{"uriTemplate": "notes:///items/{id}", "argument": "id", "value": 20}), version, &comp)
				require.Equal(t, []string{"200"}, comp.Values, "a number for a string is taken as written")
			})
		}
	}
}

// TestResourceTools_badArguments: arguments are checked exactly (known
// names, given once, their types and bounds, the required ones), and each
// refusal is a tool error result saying what is wrong.
func TestResourceTools_badArguments(t *testing.T) {
	s := newServer(t, toolsFixture(t))
	w := newWire(t, s)
	tests := []struct {
		tool, args, want string
	}{
		{"read_resource", `{}`, `missing required argument \"uri\"`},
		{"read_resource", `{"uri":true}`, `argument \"uri\" must be a string`},
		{"read_resource", `{"uri":7}`, `invalid uri \"7\"`},
		{"read_resource", `{"URI":"notes:///hello"}`, `unknown argument \"URI\"`},
		{"read_resource", `{"uri":"notes:///hello","uri":"notes:///x"}`, `given twice`},
		{"read_resource", `["notes:///hello"]`, `arguments must be a JSON object`},
		{"read_resource", `{"uri":"` + strings.Repeat("a", abi.MaxTextField+1) + `"}`, `is longer than`},
		{"list_resources", `{"limit":0}`, fmt.Sprintf("limit 0 is out of range: give 1 to %d", DefaultPageSize)},
		{"list_resources", `{"limit":1.5}`, `must be a whole number`},
		{"list_resources", `{"limit":"2"}`, `must be a whole number`},
		{"complete_resource_argument", `{"uriTemplate":"notes:///items/{id}","argument":"id","context":{"a":1}}`, `must be an object of strings`},
		{"complete_resource_argument", `{"uriTemplate":"notes:///items/{id}"}`, `missing required argument \"argument\"`},
	}
	for i, tt := range tests {
		line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s,%s}}`, i+1, tt.tool, tt.args, stdioMeta)
		_, err := w.in.Write([]byte(line + "\n"))
		require.NoError(t, err)
		msg := w.next()
		require.Equal(t, float64(i+1), msg["id"], "%s %s", tt.tool, tt.args)
		b, err := json.Marshal(msg["result"])
		require.NoError(t, err)
		require.Contains(t, string(b), `"isError":true`, "%s %s: %v", tt.tool, tt.args, msg)
		require.Contains(t, string(b), `"resultType":"complete"`, "a 2026-07-28 result")
		require.Contains(t, string(b), tt.want, "%s %s", tt.tool, tt.args)
	}
}

// TestResourceTools_audit: a tool call's audit line is the resource
// method's, naming the tool: who, uri, provider, the decision of the same
// failure, the bytes served.
func TestResourceTools_audit(t *testing.T) {
	audit, logs := newLogger()
	s := newServer(t, toolsFixture(t).WithAuditLogger(audit))
	cs := connectStdio(t, s, "2026-07-28")
	call(t, cs, "read_resource", map[string]any{"uri": "notes:///hello"})
	call(t, cs, "read_resource", map[string]any{"uri": "notes:///private/key"})
	call(t, cs, "list_resources", map[string]any{"provider": "other"})
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "nope"})
	require.Error(t, err)
	lines := strings.Join(auditLines(logs), "\n")
	for _, want := range []string{
		`who=stdio method=tools/call tool=read_resource uri=notes:///hello provider=notes decision=allow bytes=12`,
		`who=stdio method=tools/call tool=read_resource uri=notes:///private/key provider=notes decision=deny reason=not_found bytes=0`,
		`who=stdio method=tools/call tool=list_resources provider=other decision=allow`,
		`who=stdio method=tools/call tool=nope decision=deny reason=invalid_params`,
	} {
		require.Contains(t, lines, want)
	}
}

// FuzzToolArguments: tool arguments are client bytes; checking them never
// panics, and what passes is within bounds and of its kind.
func FuzzToolArguments(f *testing.F) {
	for _, seed := range []string{
		`{"uri":"notes:///hello"}`, `{"limit":3,"cursor":"x","uriPrefix":"a:","provider":"p"}`,
		`{"uriTemplate":"t:{x}","argument":"x","value":"","context":{"a":"b"}}`, `{"limit":1e400}`, `{"context":{"a":"b","a":"c"}}`,
		`{"uri":"\ud800"}`, `null`, `[]`, `{"limit":-0}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !json.Valid([]byte(raw)) {
			return // the envelope refuses it before any tool sees it
		}
		for tool, kinds := range toolArgKinds {
			args, err := decodeArgs(json.RawMessage(raw), kinds)
			if err != nil {
				continue
			}
			for name := range args.given {
				require.Contains(t, kinds, name, tool)
			}
			for _, s := range args.strings {
				require.LessOrEqual(t, len(s), maxArgString)
			}
			for _, m := range args.maps {
				require.LessOrEqual(t, len(m), maxArgMap)
			}
		}
	})
}
