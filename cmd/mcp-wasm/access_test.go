package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// TestValidate_access: validate prints the effective access rules, the
// config file's and --allow's, and refuses a rule naming a provider that
// is not served.
func TestValidate_access(t *testing.T) {
	path := testkit.WriteConfig(t, `{"providers": [{"module": "minimal.wasm", "name": "docs"}],
 "access": [{"name": "team", "who": ["claim:team=red", "token:ci"], "providers": ["docs"], "include": ["min:///red/**"], "exclude": ["min:///red/*.key"]}]}`)
	code, out, errOut := runCLI(t, "validate", "--config", path, "--allow", "token:ops=docs", "--allow", "stdio=min:///**")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "access: deny by default; a client sees what any rule for it allows:\n"+
		"    team\n      who:       claim:team=red, token:ci\n      providers: docs\n      sees:      include min:///red/**; exclude min:///red/*.key\n"+
		"    --allow token:ops\n      who:       token:ops\n      providers: docs\n      sees:      everything\n"+
		"    --allow stdio\n      who:       stdio\n      providers: every provider\n      sees:      include min:///**\n")

	code, _, errOut = runCLI(t, "validate", "--config", path, "--allow", "token:ops=nope")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, `access rule "--allow token:ops" names provider "nope", which is not served`)
	code, _, errOut = runCLI(t, "validate", "--config", path, "--allow", "token:ops")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--allow \"token:ops\": write WHO=WHAT")

	plain := testkit.WriteConfig(t, `{"providers": [{"module": "minimal.wasm"}]}`)
	code, out, errOut = runCLI(t, "validate", "--config", plain)
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, out, "access:", "no rules, no table")
}
