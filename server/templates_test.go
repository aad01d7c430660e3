package server

import (
	"context"
	"testing"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/stretchr/testify/require"
)

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
	require.Contains(t, logs.String(), "uriTemplate: uri outside the provider's uri space")
	require.Contains(t, logs.String(), "uriTemplate is not RFC 6570")
}
