package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/server/servertest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

func completeParams(refType, uri, arg, value string) *mcp.CompleteParams {
	ref := &mcp.CompleteReference{Type: refType, URI: uri}
	if refType == "ref/prompt" {
		ref = &mcp.CompleteReference{Type: refType, Name: uri}
	}
	return &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}}
}

func TestServer_complete(t *testing.T) {
	many := make([]string, 150)
	for i := range many {
		many[i] = fmt.Sprintf("v%03d", i)
	}
	other := servertest.New("other", abi.URIRoot{Scheme: "other"}).
		AddTemplate(abi.ResourceTemplate{URITemplate: "other:///{a}/{b}", Name: "ab"}, many...)
	cs := connect(t, newServer(t, NewConfig().WithProviders(notesProvider(), other)), "2025-06-18")
	tests := []struct {
		name        string
		params      *mcp.CompleteParams
		wantValues  []string
		wantLen     int
		wantHasMore bool
	}{
		{"prefix", completeParams("ref/resource", "notes:///items/{id}", "id", "2"), []string{"200"}, 1, false},
		{"all", completeParams("ref/resource", "notes:///items/{id}", "id", ""), []string{"100", "101", "200"}, 3, false},
		{"routed by space", completeParams("ref/resource", "other:///{a}/{b}", "b", "v14"), nil, 10, false},
		{"bounded to 100", completeParams("ref/resource", "other:///{a}/{b}", "a", ""), nil, 100, true},
		{"unknown template in space", completeParams("ref/resource", "notes:///nope/{x}", "x", ""), []string{}, 0, false},
		{"unknown argument", completeParams("ref/resource", "notes:///items/{id}", "zzz", ""), []string{}, 0, false},
		{"template in no space", completeParams("ref/resource", "{+anything}", "anything", ""), []string{}, 0, false},
		{"prompt", completeParams("ref/prompt", "test_prompt_with_arguments", "arg1", "test"), []string{}, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.Complete(t.Context(), tc.params)
			require.NoError(t, err)
			require.NotNil(t, res.Completion.Values)
			if tc.wantValues != nil {
				require.Equal(t, tc.wantValues, res.Completion.Values)
			}
			require.Len(t, res.Completion.Values, tc.wantLen)
			require.Equal(t, tc.wantHasMore, res.Completion.HasMore)
		})
	}
}

func TestServer_completeInvalid(t *testing.T) {
	tr := newTranscript(t, newServer(t, NewConfig().WithProviders(notesProvider())))
	tr.open("2025-11-25")
	tests := []struct {
		name   string
		params map[string]any
	}{
		{"no ref", map[string]any{"argument": map[string]any{"name": "id", "value": ""}}},
		{"no argument name", map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "notes:///items/{id}"}, "argument": map[string]any{"value": "1"}}},
		{"long value", map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "notes:///items/{id}"},
			"argument": map[string]any{"name": "id", "value": strings.Repeat("v", abi.MaxTextField+1)}}},
		{"unknown ref type", map[string]any{"ref": map[string]any{"type": "ref/tool", "name": "x"}, "argument": map[string]any{"name": "id", "value": ""}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := tr.call("completion/complete", tc.params)
			require.Contains(t, string(resp["error"]), fmt.Sprintf(`"code":%d`, jsonrpc.CodeInvalidParams))
		})
	}
}

// TestServer_completeFault checks that a provider fault is -32603 with a
// generic message, and a hung provider is cut by the call timeout.
func TestServer_completeFault(t *testing.T) {
	log, logs := newLogger()
	hung := servertest.New("hung", abi.URIRoot{Scheme: "hung"}).
		AddTemplate(abi.ResourceTemplate{URITemplate: "hung:///{id}", Name: "t"}).
		WithIntercept(func(ctx context.Context, _, _ string) error {
			<-ctx.Done()
			return fmt.Errorf("%w: guest text", abi.ErrTimeout)
		})
	cs := connect(t, newServer(t, NewConfig().WithProviders(hung).WithLogger(log).WithCallTimeout(50*time.Millisecond)), "2025-11-25")
	_, err := cs.Complete(t.Context(), completeParams("ref/resource", "hung:///{id}", "id", ""))
	werr := rpcError(t, err)
	require.Equal(t, int64(jsonrpc.CodeInternalError), werr.Code)
	require.Equal(t, msgProviderError, werr.Message)
	require.Contains(t, logs.String(), "provider=hung")
}

func Test_toCompletion(t *testing.T) {
	total := 1
	res := toCompletion(&abi.CompleteResult{Values: []string{"a", strings.Repeat("x", abi.MaxTextField+1), "b"}, Total: &total})
	require.Equal(t, []string{"a", "b"}, res.Completion.Values)
	require.Zero(t, res.Completion.Total, "a total below the values is dropped")
	require.Equal(t, []string{}, toCompletion(nil).Completion.Values)
}

// exposedFiles is a provider whose completions offer names that the
// operator's filter hides (drafts/plan-secret.md, pub/*.key), under
// templates whose literal prefix is visible, and spellings of them.
func exposedFiles(t testing.TB) Provider {
	names := []string{"drafts/plan.md", "drafts/plan-secret.md", "drafts/plan%2Dsecret.md", "pub/id.key", "pub/readme.md",
		"pub/../drafts/plan-secret.md", "pub/./id.key"}
	p := servertest.New("files", abi.URIRoot{Scheme: "notes"}).
		AddTemplate(abi.ResourceTemplate{URITemplate: "notes:///{+path}", Name: "path"}, names...).
		AddTemplate(abi.ResourceTemplate{URITemplate: "notes:///{dir}/{name}", Name: "file"},
			"drafts", "pub", "plan-secret.md", "id.key", "readme.md")
	return WithURIFilter(p, mustFilter(t, nil, []string{"notes:///drafts/plan-secret.md", "notes:///pub/*.key"}))
}

// TestServer_completeFiltered: a completion value is offered only when the
// URI it completes to (with the other arguments of the context) is one a
// read would serve: completion/complete and the tools view's
// complete_resource_argument reveal nothing the filter hides, and no total
// that counted it.
func TestServer_completeFiltered(t *testing.T) {
	tests := []struct {
		name, tmpl, arg string
		context         map[string]string
		want            []string
	}{
		{"reserved path", "notes:///{+path}", "path", nil, []string{"drafts/plan.md", "pub/readme.md"}},
		{"name in pub", "notes:///{dir}/{name}", "name", map[string]string{"dir": "pub"}, []string{"drafts", "pub", "plan-secret.md", "readme.md"}},
		{"name in drafts", "notes:///{dir}/{name}", "name", map[string]string{"dir": "drafts"}, []string{"drafts", "pub", "id.key", "readme.md"}},
		{"dir, name given", "notes:///{dir}/{name}", "dir", map[string]string{"name": "id.key"}, []string{"drafts", "plan-secret.md", "id.key", "readme.md"}},
	}
	for _, tr := range transports {
		for _, version := range []string{"2025-03-26", "2025-11-25", "2026-07-28"} {
			t.Run(tr.name+"/"+version, func(t *testing.T) {
				s := newServer(t, NewConfig().WithResourceTools(true).WithProviders(exposedFiles(t)))
				cs := tr.connect(t, s, version)
				for _, tc := range tests {
					p := completeParams("ref/resource", tc.tmpl, tc.arg, "")
					p.Context = &mcp.CompleteContext{Arguments: tc.context}
					res, err := cs.Complete(t.Context(), p)
					require.NoError(t, err, tc.name)
					require.Equal(t, tc.want, res.Completion.Values, tc.name)
					require.Zero(t, res.Completion.Total, "%s: the provider's total counted hidden values", tc.name)

					args := map[string]any{"uriTemplate": tc.tmpl, "argument": tc.arg}
					if tc.context != nil {
						args["context"] = tc.context
					}
					var comp struct {
						Values []string
						Total  *int
					}
					dataOf(t, call(t, cs, "complete_resource_argument", args), version, &comp)
					require.Equal(t, tc.want, comp.Values, "tool: %s", tc.name)
					require.Nil(t, comp.Total, "tool: %s", tc.name)
				}
				res, err := cs.Complete(t.Context(), completeParams("ref/resource", "notes:///{+path}", "path", "pub/r"))
				require.NoError(t, err)
				require.Equal(t, []string{"pub/readme.md"}, res.Completion.Values)
				require.Equal(t, 1, res.Completion.Total, "nothing dropped: the provider's total stands")
			})
		}
	}
}
