package server

import (
	"context"
	"fmt"
	"testing"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// transports connect a go-sdk client to a server over each real transport.
var transports = []struct {
	name    string
	connect func(t testing.TB, s *Server, version string) *mcp.ClientSession
}{
	{"stdio", connectStdio},
	{"http", func(t testing.TB, s *Server, version string) *mcp.ClientSession {
		return connectHTTP(t, serveHTTP(t, s, NewHTTPConfig()), version, nil, nil)
	}},
}

// hinted is a provider of n resources under scheme, listed one per page,
// each page carrying pageHint (nil: none) and the describe hint describe.
func hinted(name, scheme string, n int, pageHint, describe *abi.CacheHint) *funcProvider {
	p := newFuncProvider(name, scheme)
	p.desc.Cache = describe
	p.list = func(_ context.Context, cursor string) (*abi.ListResult, error) {
		i := 0
		if cursor != "" {
			_, _ = fmt.Sscan(cursor, &i)
		}
		res := &abi.ListResult{Resources: []abi.Resource{{URI: fmt.Sprintf("%s:///%d", scheme, i), Name: fmt.Sprint(i)}}, Cache: pageHint}
		if i+1 < n {
			res.NextCursor = fmt.Sprint(i + 1)
		}
		return res, nil
	}
	p.templates = func(context.Context, string) (*abi.TemplatesResult, error) {
		return &abi.TemplatesResult{ResourceTemplates: []abi.ResourceTemplate{{URITemplate: scheme + ":///{id}", Name: "t"}}, Cache: pageHint}, nil
	}
	return p
}

// TestServer_listTTL: a 2026-07-28 list page carries the ttlMs its
// providers' pages said (their own hint, else their describe hint): the
// shortest of the providers it holds, 0 when one of them gave none, a
// narrower scope than the list's, or failed.
func TestServer_listTTL(t *testing.T) {
	hint := func(ttl int64, scope string) *abi.CacheHint { return &abi.CacheHint{TTLMs: ttl, Scope: scope} }
	failing := newFuncProvider("zfail", "z")
	failing.list = func(context.Context, string) (*abi.ListResult, error) { return nil, abi.ErrTrap }
	tests := []struct {
		name      string
		providers []Provider
		pageSize  int
		want      []int // ttlMs of each page
		wantScope string
	}{
		{"page hint", []Provider{hinted("a", "a", 2, hint(60_000, "public"), nil)}, 10, []int{60_000}, "public"},
		{"describe hint", []Provider{hinted("a", "a", 2, nil, hint(30_000, "public"))}, 10, []int{30_000}, "public"},
		{"page hint wins", []Provider{hinted("a", "a", 2, hint(5, "public"), hint(30_000, "public"))}, 10, []int{5}, "public"},
		{"shortest of two providers", []Provider{
			hinted("a", "a", 1, hint(60_000, "public"), nil), hinted("b", "b", 1, hint(4_000, "public"), nil),
		}, 10, []int{4_000}, "public"},
		{"pages of one provider each", []Provider{
			hinted("a", "a", 1, hint(60_000, "public"), nil), hinted("b", "b", 1, hint(4_000, "public"), nil),
		}, 1, []int{60_000, 4_000}, "public"},
		{"no hint", []Provider{hinted("a", "a", 1, hint(60_000, "public"), nil), hinted("b", "b", 1, nil, nil)}, 10, []int{0}, "public"},
		{"private page in a public list", []Provider{hinted("a", "a", 1, hint(60_000, "private"), nil)}, 10, []int{0}, "public"},
		{"private list", []Provider{hinted("a", "a", 1, hint(60_000, "private"), hint(1, "private"))}, 10, []int{60_000}, "private"},
		{"a provider failed", []Provider{hinted("a", "a", 1, hint(60_000, "public"), nil), failing}, 10, []int{0}, "public"},
	}
	for _, tr := range transports {
		for _, tt := range tests {
			t.Run(tr.name+"/"+tt.name, func(t *testing.T) {
				s := newServer(t, NewConfig().WithProviders(tt.providers...).WithPageSize(tt.pageSize))
				cs := tr.connect(t, s, "2026-07-28")
				var got []int
				cursor := ""
				for {
					res, err := cs.ListResources(t.Context(), &mcp.ListResourcesParams{Cursor: cursor})
					require.NoError(t, err)
					got = append(got, res.TTLMs)
					require.Equal(t, tt.wantScope, res.CacheScope)
					if cursor = res.NextCursor; cursor == "" {
						break
					}
				}
				require.Equal(t, tt.want, got)
			})
		}
	}
	// Templates pages follow the same rule.
	for _, tr := range transports {
		t.Run(tr.name+"/templates", func(t *testing.T) {
			s := newServer(t, NewConfig().WithProviders(hinted("a", "a", 1, hint(9_000, "public"), nil)))
			res, err := tr.connect(t, s, "2026-07-28").ListResourceTemplates(t.Context(), nil)
			require.NoError(t, err)
			require.Equal(t, 9_000, res.TTLMs)
		})
	}
}

// TestServer_readAnnotations: a content's annotations from the provider
// (lastModified, audience, priority 0) reach the client in the contents'
// _meta from 2025-06-18 on, and nothing is added where ResourceContents
// has no _meta (2025-03-26).
func TestServer_readAnnotations(t *testing.T) {
	prio := 0.0
	text := "dated"
	p := newFuncProvider("n", "n")
	p.read = func(_ context.Context, uri string) (*abi.ReadResult, error) {
		return &abi.ReadResult{Contents: []abi.Content{{URI: uri, MIMEType: "text/plain", Text: &text,
			Annotations: &abi.Annotations{LastModified: "2026-03-04T05:06:07Z", Audience: []string{"user"}, Priority: &prio}}}}, nil
	}
	for _, tr := range transports {
		for _, version := range []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
			t.Run(tr.name+"/"+version, func(t *testing.T) {
				s := newServer(t, NewConfig().WithProviders(p))
				res, err := tr.connect(t, s, version).ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "n:///a"})
				require.NoError(t, err)
				require.Equal(t, "dated", res.Contents[0].Text)
				if version == "2025-03-26" {
					require.Nil(t, res.Contents[0].Meta)
					return
				}
				require.Equal(t, mcp.Meta{metaAnnotations: map[string]any{
					"lastModified": "2026-03-04T05:06:07Z", "audience": []any{"user"}, "priority": 0.0,
				}}, res.Contents[0].Meta)
			})
		}
	}
}
