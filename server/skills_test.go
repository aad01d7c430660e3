package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/server/servertest"
)

// Client-side shapes of the Skills extension's results, as a host reads
// them (the server's own types are not reused, so a field the server
// drops shows).
type (
	cSkillResource struct {
		URI    string `json:"uri"`
		Digest string `json:"digest"`
		Size   int    `json:"size"`
	}
	cSkill struct {
		URI         string           `json:"uri"`
		Frontmatter map[string]any   `json:"frontmatter"`
		Resources   []cSkillResource `json:"resources"`
	}
	cCache struct {
		ResultType string `json:"resultType"`
		TTLMs      *int64 `json:"ttlMs"`
		CacheScope string `json:"cacheScope"`
	}
	cSkillsList struct {
		mcp.ResultBase
		cCache
		Skills     []cSkill `json:"skills"`
		NextCursor string   `json:"nextCursor"`
	}
	cSkillsGet struct {
		mcp.ResultBase
		cCache
		Skill cSkill `json:"skill"`
	}
	cDirectory struct {
		mcp.ResultBase
		cCache
		Resources  []abi.Resource `json:"resources"`
		NextCursor string         `json:"nextCursor"`
	}
	cURIParams struct {
		mcp.ParamsBase
		URI    string `json:"uri,omitempty"`
		Cursor string `json:"cursor,omitempty"`
	}
)

const refundsMD = "---\nname: refunds\ndescription: Process customer refund requests per company policy\nlicense: Apache-2.0\nmetadata:\n  version: \"2.1\"\n  tags: [billing, support]\n---\n\n# Refunds\n\nSee examples/email.md.\n"

const gitMD = "---\nname: git-workflow\ndescription: Follow this team's Git conventions\n---\nBranch from main.\n"

// skillsProvider serves two skills, one under a prefix with a nested
// directory and a binary file, and a file outside any skill.
func skillsProvider() *servertest.Provider {
	return servertest.New("skills", abi.URIRoot{Scheme: "skill", Authority: abi.AnyAuthority}).
		AddText("skill://git-workflow/SKILL.md", "text/markdown", gitMD).
		AddText("skill://acme/billing/refunds/SKILL.md", "text/markdown", refundsMD).
		AddText("skill://acme/billing/refunds/examples/email.md", "text/markdown", "Dear customer,\n").
		AddBlob("skill://acme/billing/refunds/assets/logo.png", "image/png", pngBytes).
		AddText("skill://acme/README.md", "text/markdown", "not a skill\n")
}

func digestOf(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// skillsClient returns a go-sdk client that may send the extension's methods.
func skillsClient(t testing.TB) *mcp.Client {
	c := mcp.NewClient(&mcp.Implementation{Name: "skills-test", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	require.NoError(t, mcp.AddSendingCustomMethod[*cURIParams, *cSkillsList](c, methodSkillsList))
	require.NoError(t, mcp.AddSendingCustomMethod[*cURIParams, *cSkillsGet](c, methodSkillsGet))
	require.NoError(t, mcp.AddSendingCustomMethod[*cURIParams, *cDirectory](c, methodDirectoryRead))
	return c
}

// skillsOverStdio serves s on pipes and connects a skills client.
func skillsOverStdio(t testing.TB, s *Server, version string) *mcp.ClientSession {
	toServerR, toServerW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- s.ServeStdio(context.Background(), toServerR, toClientW)
		_ = toClientW.Close()
	}()
	cs, err := skillsClient(t).Connect(t.Context(), &mcp.IOTransport{Reader: toClientR, Writer: toServerW},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.Close()
		_ = toServerW.Close()
		require.NoError(t, <-done)
	})
	return cs
}

// skillsOverHTTP serves s over Streamable HTTP and connects a skills client.
func skillsOverHTTP(t testing.TB, s *Server, version string) *mcp.ClientSession {
	url := serveHTTP(t, s, NewHTTPConfig())
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: http.DefaultClient, MaxRetries: -1}
	cs, err := skillsClient(t).Connect(t.Context(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callSkills[R mcp.Result](t testing.TB, cs *mcp.ClientSession, method string, p *cURIParams) (R, error) {
	t.Helper()
	if p == nil {
		p = &cURIParams{}
	}
	return mcp.CallCustomMethod[*cURIParams, R](t.Context(), cs, method, p)
}

// TestSkills_clients drives the three methods with go-sdk clients on stdio
// and HTTP, in both protocol eras, and checks every entry against the
// bytes a resources/read returns.
func TestSkills_clients(t *testing.T) {
	cfg := NewConfig().WithProviders(notesProvider(), skillsProvider().WithCache(abi.CacheHint{TTLMs: 60_000, Scope: abi.ScopePublic}))
	for _, tr := range []struct {
		name    string
		connect func(testing.TB, *Server, string) *mcp.ClientSession
	}{{"stdio", skillsOverStdio}, {"http", skillsOverHTTP}} {
		for _, version := range []string{"2026-07-28", "2025-11-25"} {
			t.Run(tr.name+"/"+version, func(t *testing.T) {
				cs := tr.connect(t, newServer(t, cfg), version)
				modern := version == "2026-07-28"
				if !modern {
					caps := cs.InitializeResult().Capabilities
					require.Equal(t, map[string]any{"directoryRead": true}, caps.Extensions[extSkills])
				}

				list, err := callSkills[*cSkillsList](t, cs, methodSkillsList, nil)
				require.NoError(t, err)
				require.Empty(t, list.NextCursor)
				require.Len(t, list.Skills, 2, "the README outside any skill is not one")
				refunds, git := list.Skills[0], list.Skills[1]
				require.Equal(t, "skill://acme/billing/refunds/SKILL.md", refunds.URI)
				require.Equal(t, "skill://git-workflow/SKILL.md", git.URI)
				require.Equal(t, map[string]any{"name": "refunds", "description": "Process customer refund requests per company policy",
					"license": "Apache-2.0", "metadata": map[string]any{"version": "2.1", "tags": []any{"billing", "support"}}}, refunds.Frontmatter)
				require.Equal(t, []cSkillResource{
					{"skill://acme/billing/refunds/SKILL.md", digestOf([]byte(refundsMD)), len(refundsMD)},
					{"skill://acme/billing/refunds/assets/logo.png", digestOf(pngBytes), len(pngBytes)},
					{"skill://acme/billing/refunds/examples/email.md", digestOf([]byte("Dear customer,\n")), 15},
				}, refunds.Resources)
				for _, r := range refunds.Resources { // what a host verifies on read
					res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: r.URI})
					require.NoError(t, err)
					b := []byte(res.Contents[0].Text)
					if res.Contents[0].Blob != nil {
						b = res.Contents[0].Blob
					}
					require.Equal(t, r.Digest, digestOf(b), r.URI)
				}
				if modern {
					require.Equal(t, "complete", list.ResultType)
					require.NotNil(t, list.TTLMs)
					require.EqualValues(t, 60_000, *list.TTLMs)
					require.Equal(t, "public", list.CacheScope)
				} else {
					require.Empty(t, list.ResultType)
					require.Nil(t, list.TTLMs, "no cache fields before 2026-07-28")
				}

				got, err := callSkills[*cSkillsGet](t, cs, methodSkillsGet, &cURIParams{URI: git.URI})
				require.NoError(t, err)
				require.Equal(t, git, got.Skill)
				require.Equal(t, modern, got.TTLMs != nil)

				_, err = callSkills[*cSkillsGet](t, cs, methodSkillsGet, &cURIParams{URI: "skill://acme/billing/chargebacks/SKILL.md"})
				e := rpcError(t, err)
				require.EqualValues(t, jsonrpc.CodeInvalidParams, e.Code)
				require.Contains(t, e.Message, "no skill is served at skill://acme/billing/chargebacks/SKILL.md")

				dir, err := callSkills[*cDirectory](t, cs, methodDirectoryRead, &cURIParams{URI: "skill://acme/billing/refunds"})
				require.NoError(t, err)
				var kids []string
				for _, r := range dir.Resources {
					kids = append(kids, r.URI+" "+r.MIMEType)
				}
				require.Equal(t, []string{
					"skill://acme/billing/refunds/SKILL.md text/markdown",
					"skill://acme/billing/refunds/assets inode/directory",
					"skill://acme/billing/refunds/examples inode/directory",
				}, kids)

				_, err = callSkills[*cDirectory](t, cs, methodDirectoryRead, &cURIParams{URI: "skill://git-workflow/SKILL.md"})
				e = rpcError(t, err)
				require.EqualValues(t, jsonrpc.CodeInvalidParams, e.Code)
				require.Contains(t, e.Message, "is not a directory resource")
			})
		}
	}
}

// TestSkills_paging: skills/list and resources/directory/read page, and
// refuse a cursor they did not make.
func TestSkills_paging(t *testing.T) {
	p := servertest.New("skills", abi.URIRoot{Scheme: "skill", Authority: abi.AnyAuthority}).WithPageSize(7)
	for i := range skillsPageSize + 3 {
		name := fmt.Sprintf("s%03d", i)
		p.AddText("skill://many/"+name+"/SKILL.md", "text/markdown", "---\nname: "+name+"\ndescription: number "+name+"\n---\n")
	}
	for i := range directoryPageSize + 1 {
		p.AddText(fmt.Sprintf("skill://many/s000/refs/%04d.md", i), "text/markdown", "x")
	}
	cs := skillsOverStdio(t, newServer(t, NewConfig().WithProviders(p)), "")
	var uris []string
	cursor, pages := "", 0
	for {
		res, err := callSkills[*cSkillsList](t, cs, methodSkillsList, &cURIParams{Cursor: cursor})
		require.NoError(t, err)
		pages++
		for _, s := range res.Skills {
			uris = append(uris, s.URI)
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	require.Equal(t, 2, pages)
	require.Len(t, uris, skillsPageSize+3)
	require.Equal(t, "skill://many/s052/SKILL.md", uris[len(uris)-1])

	first, err := callSkills[*cDirectory](t, cs, methodDirectoryRead, &cURIParams{URI: "skill://many/s000/refs"})
	require.NoError(t, err)
	require.Len(t, first.Resources, directoryPageSize)
	require.NotEmpty(t, first.NextCursor)
	rest, err := callSkills[*cDirectory](t, cs, methodDirectoryRead, &cURIParams{URI: "skill://many/s000/refs", Cursor: first.NextCursor})
	require.NoError(t, err)
	require.Len(t, rest.Resources, 1)

	for _, c := range []struct{ method, uri, cursor string }{
		{methodSkillsList, "", "bogus"},
		{methodSkillsList, "", first.NextCursor},                     // another method's cursor
		{methodDirectoryRead, "skill://many/s001", first.NextCursor}, // another directory's
	} {
		var err error
		if c.method == methodSkillsList {
			_, err = callSkills[*cSkillsList](t, cs, c.method, &cURIParams{Cursor: c.cursor})
		} else {
			_, err = callSkills[*cDirectory](t, cs, c.method, &cURIParams{URI: c.uri, Cursor: c.cursor})
		}
		e := rpcError(t, err)
		require.EqualValues(t, jsonrpc.CodeInvalidParams, e.Code)
		require.Contains(t, e.Message, "invalid cursor")
	}
}

// TestSkills_hostile: skills a provider serves badly are left out of the
// listing, and skills/get says what to fix.
func TestSkills_hostile(t *testing.T) {
	big := strings.Repeat("x", 9<<20)
	md := func(name string) string { return "---\nname: " + name + "\ndescription: d\n---\n" }
	p := servertest.New("skills", abi.URIRoot{Scheme: "skill", Authority: abi.AnyAuthority}).
		AddText("skill://good/SKILL.md", "text/markdown", md("good")).
		AddText("skill://mismatch/SKILL.md", "text/markdown", md("other")).
		AddText("skill://Bad_Name/SKILL.md", "text/markdown", md("bad-name")).
		AddText("skill://nofence/SKILL.md", "text/markdown", "name: nofence\n").
		AddText("skill://unclosed/SKILL.md", "text/markdown", "---\nname: unclosed\ndescription: "+strings.Repeat("y", maxFrontmatter)+"\n---\n").
		AddText("skill://bomb/SKILL.md", "text/markdown", "---\nname: bomb\ndescription: d\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n---\n").
		AddText("skill://keys/SKILL.md", "text/markdown", "---\nname: keys\ndescription: d\n? [1, 2]\n: x\n---\n").
		AddText("skill://huge/SKILL.md", "text/markdown", md("huge")).
		AddText("skill://huge/a.txt", "text/plain", big).
		AddText("skill://huge/b.txt", "text/plain", big).
		AddText("skill://many/SKILL.md", "text/markdown", md("many"))
	for i := range maxSkillFiles {
		p.AddText(fmt.Sprintf("skill://many/f%03d.txt", i), "text/plain", "")
	}
	cs := skillsOverStdio(t, newServer(t, NewConfig().WithProviders(p)), "")

	list, err := callSkills[*cSkillsList](t, cs, methodSkillsList, nil)
	require.NoError(t, err)
	var uris []string
	for _, s := range list.Skills {
		uris = append(uris, s.URI)
	}
	require.Equal(t, []string{"skill://good/SKILL.md"}, uris)

	for _, c := range []struct{ uri, want string }{
		{"skill://mismatch/SKILL.md", `name "other" differs from the skill's directory "mismatch": make them equal`},
		{"skill://Bad_Name/SKILL.md", "no skill is served at"},
		{"skill://nofence/SKILL.md", `must begin with a line "---"`},
		{"skill://unclosed/SKILL.md", `no closing "---" line within 64 KiB`},
		{"skill://bomb/SKILL.md", "invalid SKILL.md frontmatter"},
		{"skill://keys/SKILL.md", "invalid SKILL.md frontmatter"},
		{"skill://huge/SKILL.md", "over 16 MiB, the most a skill may hold: split it"},
		{"skill://many/SKILL.md", "it has 513 files, over the 512 a skill may have: split it"},
		{"skill://good/../mismatch/SKILL.md", "no skill is served at"},
		{"skill://good/SKILL.md/../SKILL.md", "no skill is served at"},
		{"skill://good/README.md", "no skill is served at"},
		{"skill://index.json", "no skill is served at"},
	} {
		_, err := callSkills[*cSkillsGet](t, cs, methodSkillsGet, &cURIParams{URI: c.uri})
		e := rpcError(t, err)
		require.EqualValues(t, jsonrpc.CodeInvalidParams, e.Code, c.uri)
		require.Contains(t, e.Message, c.want, c.uri)
	}

	_, err = callSkills[*cDirectory](t, cs, methodDirectoryRead, &cURIParams{URI: "skill://good/../many"})
	e := rpcError(t, err)
	require.Contains(t, e.Message, "'.' and '..' path segments are not allowed")
}

// TestSkills_pageBytes: a skills/list page ends once its skills' files
// add up to 64 MiB, so that one request reads a bounded amount.
func TestSkills_pageBytes(t *testing.T) {
	big := strings.Repeat("x", 15<<20)
	p := servertest.New("skills", abi.URIRoot{Scheme: "skill", Authority: abi.AnyAuthority})
	for i := range 6 {
		name := fmt.Sprintf("s%d", i)
		p.AddText("skill://"+name+"/SKILL.md", "text/markdown", "---\nname: "+name+"\ndescription: d\n---\n")
		p.AddText("skill://"+name+"/data.txt", "text/plain", big)
	}
	cs := skillsOverStdio(t, newServer(t, NewConfig().WithProviders(p)), "")
	first, err := callSkills[*cSkillsList](t, cs, methodSkillsList, nil)
	require.NoError(t, err)
	require.Len(t, first.Skills, 5, "the fifth skill passes 64 MiB")
	rest, err := callSkills[*cSkillsList](t, cs, methodSkillsList, &cURIParams{Cursor: first.NextCursor})
	require.NoError(t, err)
	require.Len(t, rest.Skills, 1)
	require.Empty(t, rest.NextCursor)
}

// TestSkills_hugeListing: a provider listing more skill:// resources than
// a catalog holds gets a clear error, not an unbounded walk.
func TestSkills_hugeListing(t *testing.T) {
	p := newFuncProvider("endless", "skill")
	p.desc.URISpace = []abi.URIRoot{{Scheme: "skill", Authority: abi.AnyAuthority}}
	p.list = func(_ context.Context, cursor string) (*abi.ListResult, error) {
		var n int
		_, _ = fmt.Sscan(cursor, &n)
		res := &abi.ListResult{NextCursor: fmt.Sprint(n + 1000)}
		for i := range 1000 {
			res.Resources = append(res.Resources, abi.Resource{URI: fmt.Sprintf("skill://s/f%07d", n+i), Name: "f"})
		}
		return res, nil
	}
	cs := skillsOverStdio(t, newServer(t, NewConfig().WithProviders(p)), "")
	_, err := callSkills[*cSkillsList](t, cs, methodSkillsList, nil)
	e := rpcError(t, err)
	require.EqualValues(t, jsonrpc.CodeInternalError, e.Code)
	require.Contains(t, e.Message, "more than 100000 skill:// resources: serve fewer")
}

// TestSkills_none: with no provider of skill:// URIs the extension is not
// declared (outside judges then skip its checks), and the methods still
// answer, the listing empty.
func TestSkills_none(t *testing.T) {
	cs := skillsOverStdio(t, newServer(t, NewConfig().WithProviders(notesProvider())), "2025-11-25")
	require.Nil(t, cs.InitializeResult().Capabilities.Extensions)
	list, err := callSkills[*cSkillsList](t, cs, methodSkillsList, nil)
	require.NoError(t, err)
	require.Empty(t, list.Skills)
}

// TestSkills_audited: the extension's methods have audit lines, with the
// skill or directory they name and its provider.
func TestSkills_audited(t *testing.T) {
	audit, logs := newLogger()
	s := newServer(t, NewConfig().WithProviders(skillsProvider()).WithAuditLogger(audit))
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{` + stdioMeta + `}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"skills/get","params":{"uri":"skill://git-workflow/SKILL.md",` + stdioMeta + `}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"skills/get","params":{"uri":"skill://nope/SKILL.md",` + stdioMeta + `}}` + "\n" +
		`{"jsonrpc":"2.0","id":4,"method":"resources/directory/read","params":{"uri":"skill://acme",` + stdioMeta + `}}` + "\n")
	var out strings.Builder
	require.NoError(t, s.ServeStdio(t.Context(), in, &out))
	lines := auditLines(logs)
	for _, w := range []string{
		`who=stdio method=skills/list decision=allow`,
		`who=stdio method=skills/get uri=skill://git-workflow/SKILL.md provider=skills decision=allow`,
		`who=stdio method=skills/get uri=skill://nope/SKILL.md provider=skills decision=deny reason=invalid_params`,
		`who=stdio method=resources/directory/read uri=skill://acme provider=skills decision=allow`,
	} {
		require.True(t, slicesContainsSub(lines, w), "no line with %q in\n%s", w, strings.Join(lines, "\n"))
	}
	require.Contains(t, out.String(), `"uri":"skill://acme/billing","name":"billing","mimeType":"inode/directory"`)
}

// TestSkills_accessRules: the extension's methods answer from the client's
// view, as resources/list and read do: a skill whose files the rules hide
// is not listed, and fetching it or its directory answers as for a skill
// that does not exist.
func TestSkills_accessRules(t *testing.T) {
	rules, err := NewRules(mustRule(t, "local", []string{"stdio"}, []string{"skills"}, []string{"skill://git-workflow/**"}, nil))
	require.NoError(t, err)
	s := newServer(t, NewConfig().WithProviders(skillsProvider()).WithRules(rules))
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			cs := skillsOverStdio(t, s, version)
			list, err := callSkills[*cSkillsList](t, cs, methodSkillsList, nil)
			require.NoError(t, err)
			var uris []string
			for _, sk := range list.Skills {
				uris = append(uris, sk.URI)
			}
			require.Equal(t, []string{"skill://git-workflow/SKILL.md"}, uris)
			_, err = callSkills[*cSkillsGet](t, cs, methodSkillsGet, &cURIParams{URI: "skill://git-workflow/SKILL.md"})
			require.NoError(t, err)

			_, hidden := callSkills[*cSkillsGet](t, cs, methodSkillsGet, &cURIParams{URI: "skill://acme/billing/refunds/SKILL.md"})
			_, absent := callSkills[*cSkillsGet](t, cs, methodSkillsGet, &cURIParams{URI: "skill://acme/billing/nothing/SKILL.md"})
			require.Error(t, hidden, "a hidden skill must not be fetched")
			require.Error(t, absent)
			h, a := rpcError(t, hidden), rpcError(t, absent) // the same but for the uri each names
			require.Equal(t, a.Code, h.Code)
			require.Equal(t, strings.ReplaceAll(a.Message, "skill://acme/billing/nothing/SKILL.md", "U"), strings.ReplaceAll(h.Message, "skill://acme/billing/refunds/SKILL.md", "U"))
			require.Equal(t, strings.ReplaceAll(string(a.Data), "skill://acme/billing/nothing/SKILL.md", "U"), strings.ReplaceAll(string(h.Data), "skill://acme/billing/refunds/SKILL.md", "U"))

			dir, err := callSkills[*cDirectory](t, cs, methodDirectoryRead, &cURIParams{URI: "skill://acme/billing/refunds/"})
			if err == nil {
				require.Empty(t, dir.Resources, "a hidden skill's directory must not be listed")
			}
		})
	}
}
