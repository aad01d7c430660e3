package filesprov

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

func TestDescribe(t *testing.T) {
	var d abi.Describe
	newHarness(t, t.TempDir(), nil).ok(mcpw.OpDescribe, struct{}{}, &d)
	require.NoError(t, d.Validate())
	require.Equal(t, abi.Operations, d.Operations)
	require.Equal(t, "/", d.Requests.Filesystem[0].Path, "any directory, wherever the host mounts it")
	require.Equal(t, &abi.CacheHint{TTLMs: 1000, Scope: abi.ScopePublic}, d.Cache)
	var none abi.Describe
	(&harness{t: t, p: newFiles(nil), host: &mcpw.MapHost{}}).ok(mcpw.OpDescribe, struct{}{}, &none)
	require.Equal(t, d, none, "describe does not depend on what is granted")
	var keys []string
	for _, c := range d.Requests.Config {
		keys = append(keys, c.Key)
	}
	require.Equal(t, []string{keyShowHidden, keyMaxFileBytes}, keys)
}

func TestOptionsVisibility(t *testing.T) {
	tests := []struct {
		opts options
		rel  string
		want bool
	}{
		{options{}, "a/b.txt", true},
		{options{}, ".git/config", false},
		{options{}, "a/.env", false},
		{options{}, "a.b/c", true},
		{options{showHidden: true}, ".git/config", true},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, tt.opts.visiblePath(tt.rel), tt.rel)
	}
}

func TestShowHiddenParsing(t *testing.T) {
	for v, want := range map[string]bool{"true": true, " TRUE ": true, "false": false, "1": false, "": false} {
		h := &mcpw.MapHost{Values: map[string]string{keyShowHidden: v}}
		require.Equal(t, want, readOptions(mcpw.WithHost(t.Context(), h)).showHidden, "%q", v)
	}
}
