package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

func TestValidate(t *testing.T) {
	t.Setenv("MCPW_EXAMPLE_REGION", "eu-west")
	t.Setenv("MCPW_EXAMPLE_TOKEN", "s3cret-token")
	code, out, errOut := runCLI(t, "validate", "--config", testkit.Fixture("config", "full.json"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "full.json: ok: 2 provider(s)")
	require.Contains(t, out, "docs (line 13): "+testkit.Fixture("wat", "minimal.wasm"))
	require.Contains(t, out, "uri space:  min:")
	require.Contains(t, out, "secret api_token=********")
	require.Contains(t, out, "limits:     timeout 2s, memory 16MiB, output 1MiB, module 8MiB, pool 2, idle 2m0s, recycle after 1000 calls, init 3s, compile 2m0s, quarantine after 3 faults for 2s to 1m0s")
	require.Contains(t, out, "digest:     sha256:")
	require.Contains(t, out, "evil (line 48)")
	require.NotContains(t, out+errOut, "s3cret-token", "a secret reached the output")
	require.NotContains(t, out+errOut, "eu-west", "config values are shown by key only")
}

func TestValidate_errors(t *testing.T) {
	overlap := testkit.WriteConfig(t, "{\"providers\": [\n{\"module\": \"minimal.wasm\", \"name\": \"a\"},\n{\"module\": \"minimal.wasm\", \"name\": \"b\"}\n]}")
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"strict decoding", []string{"--config", testkit.Fixture("config", "broken.json")}, 1, []string{
			"broken.json: 2 problems:",
			`broken.json:6:9: providers[0].limits (provider "../wat/minimal.wasm"): unknown key "memry": did you mean "memory"?`,
			`broken.json:7:21: providers[0].limits.poolSize (provider "../wat/minimal.wasm"): must be a whole number, not a string: remove the quotes`,
		}},
		{"missing env", []string{"--config", testkit.Fixture("config", "full.json")}, 1, []string{`full.json:19:34: providers[0].grants.configEnv.region (provider "docs"): environment variable "MCPW_EXAMPLE_REGION" is not set`}},
		{"overlap", []string{"--config", overlap}, 1, []string{`mcp.json:3:1: providers[1] (provider "b"): claims min:, which overlaps min: claimed by providers[0] at line 2`}},
		{"no such file", []string{"--config", filepath.Join(t.TempDir(), "none.json")}, 1, []string{"read config:", "no such file or directory: check the --config path"}},
		{"no --config", nil, 2, []string{"validate needs --config FILE"}},
		{"argument", []string{"--config", overlap, "extra"}, 2, []string{"validate takes no arguments"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, append([]string{"validate"}, tt.args...)...)
			require.Equal(t, tt.code, code, errOut)
			require.Empty(t, out)
			for _, w := range tt.want {
				require.Contains(t, strings.ReplaceAll(errOut, filepath.Dir(overlap)+"/", ""), w)
			}
		})
	}
}

func TestServe_configRefusesProviderFlags(t *testing.T) {
	path := testkit.Fixture("config", "minimal.json")
	for _, args := range [][]string{
		{"--module", testkit.Fixture("wat", "minimal.wasm")},
		{"--timeout", "1s"},
		{"--allow-dir", "."},
		{"--config-value", "a=b"},
		{"--show-hidden"},
	} {
		code, _, errOut := runCLI(t, append([]string{"serve", "--config", path}, args...)...)
		require.Equal(t, 2, code, errOut)
		require.Contains(t, errOut, args[0]+" and --config: providers, grants and limits come from the config file alone", args[0])
	}
}

// TestValidate_builtinFiles: a config file may name the built-in files
// provider as builtin://files; its bytes come from the binary.
func TestValidate_builtinFiles(t *testing.T) {
	path := testkit.WriteConfig(t, `{"providers": [{"module": "builtin://files", "grants": {"dirs": [{"host": "docs"}]}}]}`)
	code, out, errOut := runCLI(t, "validate", "--config", path)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "files (line 1): builtin://files")
	path = testkit.WriteConfig(t, `{"providers": [{"module": "builtin://nothing"}]}`)
	code, _, errOut = runCLI(t, "validate", "--config", path)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "builtin:// references are not supported here")
}
