package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// TestRead_access: the access rules come out compiled, in order, a rule
// without a name named after its place.
func TestRead_access(t *testing.T) {
	path := testkit.WriteConfig(t, `{"providers": [{"module": "minimal.wasm"}],
 "access": [
  {"name": "alice", "who": ["token:alice", "claim:team=red"], "providers": ["minimal"], "include": ["minimal:///alice/**"]},
  {"who": ["*"], "include": ["minimal:///public/**"], "exclude": ["minimal:///public/*.key"]}
 ]}`)
	cfg, err := Read(path, testkit.NoEnv)
	require.NoError(t, err)
	rules := cfg.Access.All()
	require.Len(t, rules, 2)
	require.Equal(t, "alice", rules[0].Name())
	require.Equal(t, []string{"token:alice", "claim:team=red"}, rules[0].Who())
	require.Equal(t, []string{"minimal"}, rules[0].Providers())
	require.Equal(t, "access[1]", rules[1].Name())
	require.Nil(t, rules[1].Providers(), "no providers: every provider")

	w := server.Who{Kind: server.WhoStatic, Name: "alice"}
	r, ok := cfg.Access.Decide(w, "minimal", "minimal:///alice/x")
	require.True(t, ok)
	require.Equal(t, "alice", r.Name())
	_, ok = cfg.Access.Decide(w, "minimal", "minimal:///bob/x")
	require.False(t, ok, "deny by default")
	_, ok = cfg.Access.Decide(server.Who{Kind: server.WhoAnonymous}, "minimal", "minimal:///public/a.key")
	require.False(t, ok, "excluded")

	require.NoError(t, CheckRuleProviders(cfg.Access, []string{"minimal"}))
	require.ErrorContains(t, CheckRuleProviders(cfg.Access, []string{"other"}), `access rule "alice" names provider "minimal", which is not served`)

	cfg, err = Read(testkit.WriteConfig(t, `{"providers": [{"module": "minimal.wasm"}]}`), testkit.NoEnv)
	require.NoError(t, err)
	require.False(t, cfg.Access.On(), "no rules: access control off")
}

// TestRead_accessProblems: every bad rule is a problem at its place.
func TestRead_accessProblems(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"no who", `{"providers": [{"module": "minimal.wasm"}], "access": [{"name": "x"}]}`,
			[]string{`access[0]: invalid access rule "x": who is empty`}},
		{"bad who", "{\"providers\": [{\"module\": \"minimal.wasm\"}],\n\"access\": [{\"who\": [\"alice\"]}]}",
			[]string{`mcp.json:2:12: access[0]: invalid access rule "access[0]": who "alice": write KIND:NAME`}},
		{"bad claim", `{"providers": [{"module": "minimal.wasm"}], "access": [{"who": ["claim:tenant"]}]}`,
			[]string{`write claim:NAME=VALUE`}},
		{"bad pattern", `{"providers": [{"module": "minimal.wasm"}], "access": [{"who": ["*"], "include": ["/docs"]}]}`,
			[]string{`does not start with a scheme`}},
		{"same name", `{"providers": [{"module": "minimal.wasm"}], "access": [{"name": "a", "who": ["*"]}, {"name": "a", "who": ["stdio"]}]}`,
			[]string{`two rules are named "a"`}},
		{"unknown key", `{"providers": [{"module": "minimal.wasm"}], "access": [{"who": ["*"], "provider": ["x"]}]}`,
			[]string{`unknown key "provider"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := testkit.WriteConfig(t, tt.text)
			_, err := Read(path, testkit.NoEnv)
			require.Error(t, err)
			msg := strings.ReplaceAll(err.Error(), filepath.Dir(path)+string(filepath.Separator), "")
			for _, w := range tt.want {
				require.Contains(t, msg, w)
			}
		})
	}
}
