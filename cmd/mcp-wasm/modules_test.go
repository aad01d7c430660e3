package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/cmd/mcp-wasm/defaultprovider"
)

// The policy flags: a keyless identity needs its issuer and a trusted
// root; with --config they are refused like every per-provider flag.
func TestPolicyFlags(t *testing.T) {
	dir := t.TempDir()
	module := filepath.Join(dir, "files.wasm")
	require.NoError(t, os.WriteFile(module, defaultprovider.Wasm(), 0o644))
	config := filepath.Join(dir, "mcp.json")
	require.NoError(t, os.WriteFile(config, []byte(`{"providers": [{"module": "files.wasm"}]}`), 0o644))
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"call", "--signature-identity", "a@b.example", module, "describe"}, 2, "exactly one of issuer and issuerRegexp"},
		{[]string{"call", "--signature-issuer", "https://i.example", module, "describe"}, 2, "exactly one of identity and identityRegexp"},
		{[]string{"call", "--signature-identity", "a@b.example", "--signature-issuer", "https://i.example", module, "describe"}, 2, "--trusted-root FILE"},
		{[]string{"call", "--signature-key", filepath.Join(dir, "none.pub"), module, "describe"}, 2, "read public key"},
		{[]string{"call", "--require-digest", module, "describe"}, 1, `add "sha256": "`},
		{[]string{"serve", "--config", config, "--signature-key", "k.pub"}, 2, "--signature-key and --config"},
		{[]string{"serve", "--module", "oci://ghcr.io/acme/notes"}, 1, "names no tag and no digest"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(t, tc.args...)
			require.Equal(t, tc.code, code, out+errOut)
			require.Contains(t, errOut, tc.want)
		})
	}
}
