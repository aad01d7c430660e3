package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy/sigtest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

const zeroPin = "0000000000000000000000000000000000000000000000000000000000000000"

// TestRead_provenanceProblems: a bad pin, reference, policy or expose
// pattern is a problem at its key, with the others, before any module is
// loaded.
func TestRead_provenanceProblems(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"bad pin", "{\"providers\": [{\"module\": \"minimal.wasm\",\n \"sha256\": \"abc\"}]}",
			[]string{`mcp.json:2:12: providers[0].sha256 (provider "minimal.wasm"): `, `(the module's sha256, as mcp-wasm lock writes it)`}},
		{"reference without a tag", `{"providers": [{"module": "oci://ghcr.io/acme/notes"}]}`,
			[]string{`providers[0].module (provider "oci://ghcr.io/acme/notes"): reference "oci://ghcr.io/acme/notes" names no tag and no digest`}},
		{"reference without a host", `{"providers": [{"module": "oci://notes:1"}]}`,
			[]string{`providers[0].module (provider "oci://notes:1"): reference "oci://notes:1" does not start with a registry host`}},
		{"global policy", "{\"policy\": {\"signers\": [{\"identity\": \"a@b.example\"}]},\n\"providers\": [{\"module\": \"minimal.wasm\"}]}",
			[]string{`mcp.json:1:12: policy: signer 1: give exactly one of issuer and issuerRegexp`}},
		{"provider policy", `{"providers": [{"module": "minimal.wasm", "policy": {"signers": [{"key": "none.pub"}]}}]}`,
			[]string{`providers[0].policy (provider "minimal.wasm"): signer 1:`, `none.pub`}},
		{"keyless without a root", `{"providers": [{"module": "minimal.wasm", "policy": {"signers": [{"identity": "a@b.example", "issuer": "https://i.example"}]}}]}`,
			[]string{`providers[0].policy (provider "minimal.wasm"): certificate identities are checked against a trusted root`}},
		{"policy key unknown", `{"policy": {"requireDigests": true}, "providers": [{"module": "minimal.wasm"}]}`,
			[]string{`unknown key "requireDigests": did you mean "requireDigest"?`}},
		{"expose pattern", "{\"providers\": [{\"module\": \"minimal.wasm\",\n \"expose\": {\"include\": [\"/docs/**\"]}}]}",
			[]string{`mcp.json:2:12: providers[0].expose (provider "minimal.wasm"): invalid uri pattern: include pattern "/docs/**": does not start with a scheme`}},
		{"all at once", `{"providers": [{"module": "minimal.wasm", "sha256": "x", "expose": {"exclude": ["nope"]}}, {"module": "oci://x"}]}`,
			[]string{`3 problems`, `providers[0].sha256`, `providers[0].expose`, `providers[1].module`}},
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

// TestRead_provenance: the pin comes out normalized, the file's policy
// applies to every provider without its own and a provider's own replaces
// it (an empty one requires nothing), the expose filter and the registry
// settings are read, and builtin:// is left to the resolver.
func TestRead_provenance(t *testing.T) {
	path := testkit.WriteConfig(t, `{
  "server": {"insecureRegistries": ["127.0.0.1:5000"], "resourceTools": true},
  "policy": {"requireDigest": true, "signers": [{"key": "cosign.pub"}]},
  "providers": [
    {"module": "minimal.wasm", "sha256": "`+zeroPin+`"},
    {"module": "good.wasm", "sha256": "sha256:`+zeroPin+`", "policy": {}, "expose": {"exclude": ["evil:secret*"]}},
    {"module": "oci://127.0.0.1:5000/acme/notes:1", "name": "notes", "policy": {"requireDigest": true}},
    {"module": "builtin://files", "schemePrefix": "x"}
  ]
}`)
	sigtest.NewKey(t, filepath.Dir(path), "cosign.pub")
	cfg, err := Read(path, testkit.NoEnv)
	require.NoError(t, err)
	require.Equal(t, []string{"127.0.0.1:5000"}, cfg.Server.InsecureRegistries)
	require.True(t, *cfg.Server.ResourceTools)

	minimal, good, notes, files := cfg.Providers[0], cfg.Providers[1], cfg.Providers[2], cfg.Providers[3]
	require.Equal(t, "sha256:"+zeroPin, minimal.SHA256)
	require.Equal(t, "sha256:"+zeroPin, good.SHA256, "written with or without its prefix")
	require.True(t, minimal.Policy.RequiresDigest() && minimal.Policy.RequiresSignature(), "the file's policy")
	require.Same(t, minimal.Policy, files.Policy, "compiled once for every provider without its own")
	require.False(t, good.Policy.RequiresDigest() || good.Policy.RequiresSignature(), "its own, empty, policy replaces the file's")
	require.True(t, notes.Policy.RequiresDigest())
	require.False(t, notes.Policy.RequiresSignature(), "replaced, not merged")
	require.Equal(t, ModuleRef("oci://127.0.0.1:5000/acme/notes:1"), notes.Module)
	require.Equal(t, ModuleRef("builtin://files"), files.Module)

	require.True(t, minimal.Expose.IsZero())
	require.False(t, good.Expose.Allows("evil:secret-plan"))
	require.True(t, good.Expose.Allows("evil:good"))
}

// TestConfig_Pin: lock's rewrite through a real read: every provider is
// asked, in order; a registry reference is replaced by its pinned form, a
// file keeps the path as written (relative), and every other byte stays.
func TestConfig_Pin(t *testing.T) {
	text := `{
  "providers": [
    {"module": "minimal.wasm", "name": "m"},
    {
      "module": "oci://127.0.0.1:5000/acme/notes:1",
      "sha256": "` + zeroPin + `"
    }
  ]
}
`
	path := testkit.WriteConfig(t, text)
	cfg, err := Read(path, testkit.NoEnv)
	require.NoError(t, err)
	var asked []ModuleRef
	one, two := strings.Repeat("1", 64), strings.Repeat("2", 64)
	out, err := cfg.Pin(func(p Provider) (string, ModuleRef, error) {
		asked = append(asked, p.Module)
		if len(asked) == 1 {
			return "sha256:" + one, "", nil
		}
		return "sha256:" + two, p.Module + "@sha256:" + ModuleRef(strings.Repeat("3", 64)), nil
	})
	require.NoError(t, err)
	require.Equal(t, []ModuleRef{ModuleRef(filepath.Join(filepath.Dir(path), "minimal.wasm")), "oci://127.0.0.1:5000/acme/notes:1"}, asked)
	require.Equal(t, `{
  "providers": [
    {"module": "minimal.wasm", "sha256": "`+one+`", "name": "m"},
    {
      "module": "oci://127.0.0.1:5000/acme/notes:1@sha256:`+strings.Repeat("3", 64)+`",
      "sha256": "`+two+`"
    }
  ]
}
`, string(out))

	require.NoError(t, WriteFile(path, out))
	again, err := Read(path, testkit.NoEnv)
	require.NoError(t, err, "the pinned file reads")
	require.Equal(t, "sha256:"+one, again.Providers[0].SHA256)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o644), fi.Mode().Perm(), "the file keeps its mode")

	_, err = (&Config{Providers: []Provider{{Module: "x.wasm"}}}).Pin(nil)
	require.ErrorContains(t, err, "give --config FILE")
}
