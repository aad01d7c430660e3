package server

import (
	"context"
	"testing"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/stretchr/testify/require"
)

func Test_checkTemplate(t *testing.T) {
	scheme := abi.URISpace{{Scheme: "notes"}}
	auth := abi.URISpace{{Scheme: "https", Authority: "api.example.com"}}
	prefix := abi.URISpace{{Scheme: "file", PathPrefix: "/srv/data"}}
	slash := abi.URISpace{{Scheme: "file", PathPrefix: "/srv/"}}
	anyAuth := abi.URISpace{{Scheme: "test", Authority: abi.AnyAuthority}}
	anyAuthPrefix := abi.URISpace{{Scheme: "s3", Authority: abi.AnyAuthority, PathPrefix: "/pub/"}}
	tests := []struct {
		name    string
		tmpl    string
		space   abi.URISpace
		wantErr error
	}{
		{"scheme only", "notes:///{id}", scheme, nil},
		{"opaque", "notes:{id}", scheme, nil},
		{"plain uri", "notes:///a", scheme, nil},
		{"other scheme", "file:///{id}", scheme, errTemplateForeign},
		{"scheme from expression", "{scheme}:///x", scheme, errTemplateForeign},
		{"scheme extended", "notes{x}:///a", scheme, errTemplateForeign},
		{"authority fixed", "https://api.example.com/{+path}", auth, nil},
		{"authority case", "https://API.example.com/v1/{id}", auth, nil},
		{"authority open", "https://api.example.com{+rest}", auth, errTemplateForeign},
		{"authority other", "https://evil.example/{id}", auth, errTemplateForeign},
		{"authority missing", "https:{+rest}", auth, errTemplateForeign},
		{"prefix below", "file:///srv/data/{+path}", prefix, nil},
		{"prefix exact with query", "file:///srv/data?q={q}", prefix, nil},
		{"prefix runs on", "file:///srv/data{+path}", prefix, errTemplateForeign},
		{"prefix sibling", "file:///srv/database/{id}", prefix, errTemplateForeign},
		{"prefix above", "file:///srv/{+path}", prefix, errTemplateForeign},
		{"slash prefix", "file:///srv/{+path}", slash, nil},
		{"slash prefix run on", "file:///srv/x{id}", slash, nil},
		{"no authority root, a host", "file://host/srv/{id}", slash, errTemplateForeign},
		{"no authority root, open host", "file://{host}/srv/{id}", slash, errTemplateForeign},
		{"any authority, fixed", "test://template/{id}/data", anyAuth, nil},
		{"any authority, open", "test://{bucket}/data", anyAuth, nil},
		{"any authority, prefix below", "s3://bucket/pub/{key}", anyAuthPrefix, nil},
		{"any authority, prefix above", "s3://bucket/{key}", anyAuthPrefix, errTemplateForeign},
		{"any authority, open with prefix", "s3://{bucket}/pub/{key}", anyAuthPrefix, errTemplateForeign},
		{"any authority, other scheme", "file://x/{id}", anyAuth, errTemplateForeign},
		{"bad syntax", "notes:///{id", scheme, errTemplateSyntax},
		{"bad operator", "notes:///{@id}", scheme, errTemplateSyntax},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkTemplate(tc.tmpl, tc.space)
			if tc.wantErr == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

// TestServer_templatesFiltered checks that templates that do not parse or
// leave the provider's space are left out and logged, the rest served.
func TestServer_templatesFiltered(t *testing.T) {
	log, logs := newLogger()
	f := newFuncProvider("x", "x")
	f.templates = func(context.Context, string) (*abi.TemplatesResult, error) {
		return &abi.TemplatesResult{ResourceTemplates: []abi.ResourceTemplate{
			{URITemplate: "x:///{id}", Name: "ok"},
			{URITemplate: "file:///{+path}", Name: "foreign"},
			{URITemplate: "x:///{id", Name: "broken"},
			{URITemplate: "x:///items/{id}", Name: "ok2"},
		}}, nil
	}
	cs := connect(t, newServer(t, NewConfig().WithProviders(f).WithLogger(log)), "2025-11-25")
	res, err := cs.ListResourceTemplates(t.Context(), nil)
	require.NoError(t, err)
	var names []string
	for _, tm := range res.ResourceTemplates {
		names = append(names, tm.Name)
	}
	require.Equal(t, []string{"ok", "ok2"}, names)
	require.Contains(t, logs.String(), "provider=x")
	require.Contains(t, logs.String(), "template expands outside")
	require.Contains(t, logs.String(), "not an RFC 6570 template")
}
