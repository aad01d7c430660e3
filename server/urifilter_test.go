package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/server/servertest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

func mustFilter(t testing.TB, include, exclude []string) URIFilter {
	t.Helper()
	f, err := NewURIFilter(include, exclude)
	require.NoError(t, err)
	return f
}

func TestURIFilter_allows(t *testing.T) {
	f := mustFilter(t, []string{"file:///docs/**", "notes:*"}, []string{"file:///docs/**/*.key", "file:///docs/secret/**"})
	tests := map[string]bool{
		"file:///docs/a.md":             true,
		"file:///docs/deep/er/a.md":     true,
		"file:///other/a.md":            false, // not included
		"file:///docs/x.key":            true,  // "**/*.key" needs a "/" after docs/
		"file:///docs/d/x.key":          false,
		"file:///docs/secret/a.md":      false,
		"file:///docs/%73ecret/a.md":    false, // an escape is the character
		"FILE:///docs/secret/a.md":      false, // the scheme has no case
		"file:///docs/Secret/a.md":      true,  // the path has
		"file:///docs/secret%2fa.md":    false, // %2f decodes to /
		"file:///docs/%zz":              false, // an invalid escape is hidden
		"file:///docs/%0%30":            false, // "%00" with a digit encoded: broken, hidden
		"notes:a":                       true,
		"notes:a/b":                     false, // * stops at /
		"https://Example.com/docs/a.md": false,
	}
	for uri, want := range tests {
		require.Equal(t, want, f.Allows(uri), uri)
	}
	require.True(t, URIFilter{}.Allows("anything:at all"), "the zero filter lets everything through")

	authority := mustFilter(t, nil, []string{"https://*.example.com/private/**"})
	require.False(t, authority.Allows("https://API.Example.com/private/x"), "the authority has no case")
	require.True(t, authority.Allows("https://api.example.com/public/x"))
}

func TestURIFilter_templates(t *testing.T) {
	f := mustFilter(t, []string{"file:///docs/**"}, []string{"file:///docs/secret/**", "file:///docs/*.key"})
	tests := map[string]bool{
		"file:///{+path}":             true,  // may expand into docs
		"file:///docs/{name}":         true,  // into docs
		"file:///docs/secret/{+path}": false, // wholly excluded
		"file:///other/{+path}":       false, // never included
		"file:///docs/{name}.key":     true,  // the literal prefix cannot tell
		"file:///docs/a.md":           true,  // no expression: the URI itself
		"file:///docs/b.key":          false,
	}
	for tmpl, want := range tests {
		require.Equal(t, want, f.allowsTemplate(tmpl), tmpl)
	}
}

func TestNewURIFilter_refusals(t *testing.T) {
	tests := map[string]string{
		"no scheme":     "/docs/**",
		"control":       "file:///a\x1b[31m",
		"bidi":          "file:///a\u202e",
		"space":         "file:///a b",
		"bad escape":    "file:///%zz",
		"too long":      "file:///" + strings.Repeat("a", abi.MaxURILength),
		"invalid utf-8": "file:///\xff",
	}
	for name, p := range tests {
		_, err := NewURIFilter(nil, []string{p})
		require.ErrorIs(t, err, errPattern, name)
	}
	_, err := NewURIFilter(make([]string, MaxURIPatterns+1), nil)
	require.ErrorContains(t, err, "at most 256")
}

// FuzzURIFilter: no spelling of a URI gets another verdict than the URI:
// percent-encoding any byte outside an escape, or the scheme and authority
// in upper case, neither hides a visible URI nor reveals a hidden one. A
// byte of an escape is not respelled: "%00" with its second digit encoded
// is "%0%30", a broken escape and another URI (which the filter refuses),
// not a spelling of the same one.
func FuzzURIFilter(f *testing.F) {
	for _, seed := range []string{"file:///docs/secret/a", "file:///docs/a.key", "https://h.example.com/private/x", "notes:a", "file:///%"} {
		f.Add(seed, 3)
	}
	filter := mustFilter(f, []string{"file:///**", "https://**", "notes:*"},
		[]string{"file:///docs/secret/**", "file:///**/*.key", "https://*.example.com/private/**"})
	f.Fuzz(func(t *testing.T, uri string, at int) {
		want := filter.Allows(uri)
		colon := strings.IndexByte(uri, ':')
		if colon < 0 || at < 0 || at <= colon || at >= len(uri) || uri[at] == '%' || inEscape(uri, at) {
			return
		}
		respelled := uri[:at] + fmt.Sprintf("%%%02X", uri[at]) + uri[at+1:]
		require.Equal(t, want, filter.Allows(respelled), "%q respelled %q", uri, respelled)
		require.Equal(t, want, filter.Allows(strings.ToUpper(uri[:colon])+uri[colon:]), "%q with its scheme in upper case", uri)
	})
}

// inEscape reports whether uri[at] is one of the two digits of a
// percent escape ("%" and the two bytes after it).
func inEscape(uri string, at int) bool {
	for i := 0; i < len(uri) && i < at; i++ {
		if uri[i] == '%' {
			if at <= i+2 {
				return true
			}
			i += 2
		}
	}
	return false
}

// filteredNotes is the notes fixture with a directory-like resource whose
// read returns a visible and a hidden content, behind a filter that hides
// notes:///logo.png, everything under notes:///private/ and its template.
func filteredNotes(t testing.TB) Provider {
	a, b := "visible", "hidden"
	p := notesProvider().
		AddText("notes:///private/diary", "text/plain", "dear diary").
		AddResource(abi.Resource{URI: "notes:///dir", Name: "dir"}, abi.Content{URI: "notes:///dir", Text: &a}).
		AddTemplate(abi.ResourceTemplate{URITemplate: "notes:///private/{day}", Name: "day"}, "mon", "tue")
	both := &multiRead{Provider: p, extra: abi.Content{URI: "notes:///private/x", Text: &b}}
	return WithURIFilter(both, mustFilter(t, nil, []string{"notes:///logo.png", "notes:///private/**"}))
}

// multiRead adds a second content to the read of notes:///dir.
type multiRead struct {
	*servertest.Provider
	extra abi.Content
}

func (m *multiRead) Read(ctx context.Context, uri string) (*abi.ReadResult, error) {
	res, err := m.Provider.Read(ctx, uri)
	if err == nil && uri == "notes:///dir" {
		res.Contents = append(res.Contents, m.extra)
	}
	return res, err
}

// TestServer_uriFilter: what the operator's filter hides, a client never
// sees, on every revision and transport: not in lists, not found by read
// (however spelled) and subscribe, left out of a read's contents and of
// templates and completions.
func TestServer_uriFilter(t *testing.T) {
	for _, tr := range transports {
		for _, version := range []string{"2025-03-26", "2025-11-25", "2026-07-28"} {
			t.Run(tr.name+"/"+version, func(t *testing.T) {
				s := newServer(t, NewConfig().WithProviders(filteredNotes(t)))
				cs := tr.connect(t, s, version)
				uris, _ := listAll(t, cs)
				require.Equal(t, []string{"notes:///dir", "notes:///empty", "notes:///hello", "notes:///styled"}, uris)

				for _, hidden := range []string{"notes:///logo.png", "NOTES:///logo.png", "notes:///logo%2Epng", "notes:///private/diary", "notes:///%70rivate/diary"} {
					_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: hidden})
					_, missingErr := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///missing"})
					require.Equal(t, rpcError(t, missingErr).Code, rpcError(t, err).Code, "%s is as not found as a missing resource", hidden)
				}
				res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///dir"})
				require.NoError(t, err)
				require.Len(t, res.Contents, 1, "the hidden content of the read is left out")
				require.Equal(t, "visible", res.Contents[0].Text)

				tmpl, err := cs.ListResourceTemplates(t.Context(), nil)
				require.NoError(t, err)
				require.Len(t, tmpl.ResourceTemplates, 1)
				require.Equal(t, "notes:///items/{id}", tmpl.ResourceTemplates[0].URITemplate)
				comp, err := cs.Complete(t.Context(), completeParams("ref/resource", "notes:///private/{day}", "day", ""))
				require.NoError(t, err)
				require.Empty(t, comp.Completion.Values)

				if version != "2026-07-28" {
					err = cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "notes:///private/diary"})
					require.Error(t, err, "a hidden resource cannot be subscribed to")
					require.NoError(t, cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "notes:///hello"}))
				}
			})
		}
	}
	s := newServer(t, NewConfig().WithProviders(filteredNotes(t)))
	set := s.acquire()
	defer set.release()
	require.IsType(t, &multiRead{}, set.backends[0].p, "the backend holds the provider itself")
	require.False(t, set.backends[0].filter.IsZero(), "and the filter beside it")
}
