package served

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

func TestLoad(t *testing.T) {
	files := filesWasm(t)
	tests := []struct {
		name string
		text string
		want string // "" = loads
	}{
		{"three providers", `{"providers": [{"module": "minimal.wasm"}, {"module": "good.wasm"}, {"module": "FILES", "grants": {"dirs": [{"host": "docs"}]}}]}`, ""},
		{"rename", `{"providers": [{"module": "minimal.wasm", "name": "m1"}]}`, ""},
		{"overlap", "{\"providers\": [\n{\"module\": \"minimal.wasm\", \"name\": \"a\"},\n{\"module\": \"minimal.wasm\", \"name\": \"b\"}]}",
			`mcp.json:3:1: providers[1] (provider "b"): claims min:, which overlaps min: claimed by providers[0] at line 2: give one of them a "schemePrefix"`},
		{"duplicate name", "{\"providers\": [\n{\"module\": \"minimal.wasm\"},\n{\"module\": \"good.wasm\", \"name\": \"minimal\"}]}",
			`mcp.json:3:1: providers[1] (provider "minimal"): provider name "minimal" is also used by providers[0] at line 2: give one of them another "name"`},
		{"bad name", `{"providers": [{"module": "minimal.wasm", "name": "Bad Name"}]}`, `mcp.json:1:51: providers[0].name (provider "Bad Name"): "Bad Name" is not a provider name: use 1-64 of [a-z0-9._-]`},
		{"limit out of range", `{"providers": [{"module": "minimal.wasm", "limits": {"poolSize": 1000}}]}`, `pool size must be 1-256`},
		{"not wasm", `{"providers": [{"module": "mcp.json"}]}`, `providers[0].module (provider "mcp.json"): load`},
		{"over the module size", `{"providers": [{"module": "minimal.wasm", "limits": {"moduleSize": 8}}]}`, `providers[0].module (provider "minimal.wasm"): load`},
		{"go guest under its memory floor", `{"providers": [{"module": "FILES", "grants": {"dirs": [{"host": "docs"}]}, "limits": {"memory": "1MiB"}}]}`, `providers[0].module (provider "FILES"): load`},
		{"unknown reference", `{"providers": [{"module": "oci://registry.example/x:1"}]}`, `oci:// references are not supported here: give the path of a .wasm file`},
	}
	loader := NewLoader(newTestRuntime(t), ResolveFile, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := testkit.WriteConfig(t, strings.ReplaceAll(tt.text, "FILES", files))
			cfg, err := readConfig(path)
			require.NoError(t, err)
			g, err := loader.Load(t.Context(), cfg)
			if tt.want == "" {
				require.NoError(t, err)
				require.Len(t, g.Providers(), len(cfg.Providers))
				for _, p := range g.Providers() {
					require.True(t, strings.HasPrefix(p.Module().Digest, "sha256:"))
				}
				g.Close(t.Context())
				return
			}
			require.Error(t, err)
			require.Nil(t, g)
			msg := strings.ReplaceAll(strings.ReplaceAll(err.Error(), filepath.Dir(path)+"/", ""), files, "FILES")
			require.Contains(t, msg, tt.want)
		})
	}
}

// TestLoad_resolverIsTheOneSource: every module's bytes come from the
// loader's resolver, with the size limit of its provider.
func TestLoad_resolverIsTheOneSource(t *testing.T) {
	good, err := os.ReadFile(testkit.Fixture("hostile", "good.wasm"))
	require.NoError(t, err)
	var asked []string
	resolve := func(ctx context.Context, req Request) (Module, error) {
		asked = append(asked, string(req.Ref))
		require.Equal(t, 4096, req.MaxBytes)
		if req.Ref == "test://good" {
			return NewModule(req.Ref, good), nil
		}
		return Module{}, errors.New("no such module")
	}
	cfg := &config.Config{Providers: []config.Provider{{Module: "test://good", Limits: config.Limits{ModuleSize: 4096}}}}
	g, err := NewLoader(newTestRuntime(t), resolve, nil).Load(t.Context(), cfg)
	require.NoError(t, err)
	defer g.Close(t.Context())
	require.Equal(t, []string{"test://good"}, asked)
	p := g.Providers()[0]
	require.Equal(t, "evil", p.Name())
	require.Equal(t, abi.URISpace{{Scheme: "evil"}}, abi.URISpace(p.Describe().URISpace))
	require.Equal(t, NewModule("test://good", good).Digest, p.Module().Digest)

	_, err = NewLoader(newTestRuntime(t), resolve, nil).Load(t.Context(), &config.Config{Providers: []config.Provider{{Module: "test://nope", Limits: config.Limits{ModuleSize: 4096}}}})
	require.ErrorContains(t, err, "load test://nope: no such module")
}

func TestBuiltin(t *testing.T) {
	r := Builtin(map[config.ModuleRef][]byte{"builtin://x": []byte("\x00asm")}, ResolveFile)
	m, err := r(t.Context(), Request{Ref: "builtin://x", MaxBytes: 100})
	require.NoError(t, err)
	require.Equal(t, []byte("\x00asm"), m.Wasm)
	require.Empty(t, m.Watch, "nothing local to watch")
	_, err = r(t.Context(), Request{Ref: "builtin://x", MaxBytes: 2})
	require.ErrorContains(t, err, "module is 4 bytes, limit is 2")
	m, err = r(t.Context(), Request{Ref: config.ModuleRef(testkit.Fixture("wat", "minimal.wasm")), MaxBytes: 1 << 20})
	require.NoError(t, err)
	require.Equal(t, testkit.Fixture("wat", "minimal.wasm"), m.Watch, "a file is watched")
	_, err = r(t.Context(), Request{Ref: config.ModuleRef(testkit.Fixture("wat", "minimal.wasm")), MaxBytes: 8})
	require.ErrorContains(t, err, "limit is 8")
}

// TestLoad_limitsReachTheRuntime: every limit of a config reaches the
// provider's runtime configuration: out-of-range values are the runtime's
// refusals, and a quarantine after one fault quarantines after one trap.
func TestLoad_limitsReachTheRuntime(t *testing.T) {
	loader := NewLoader(newTestRuntime(t), ResolveFile, nil)
	for key, want := range map[string]string{
		`"initTimeout": "2h"`:                    "init timeout must be in (0, 1h]",
		`"compileTimeout": "2h"`:                 "compile timeout must be in (0, 1h]",
		`"quarantine": {"backoff": "1h"}`:        "quarantine needs faults >= 1 and 0 < base <= max",
		`"quarantine": {"after": -1}`:            "quarantine needs faults >= 1",
		`"recycleAfter": -1`:                     "recycle-after must be >= 0",
		`"idleTimeout": "25h"`:                   "idle timeout must be in [0, 24h]",
		`"output": 10`:                           "output limit must be between 1 KiB and 256 MiB",
		`"memory": "8GiB"`:                       "memory limit must be between 64 KiB and 4 GiB",
		`"quarantine": {"maxBackoff": "500ms"}`:  "0 < base <= max",
		`"timeout": "2h", "initTimeout": "1s"`:   "timeout must be in (0, 1h]",
		`"moduleSize": "2GiB", "poolSize": 4`:    "module size limit must be between 8 B and 1 GiB",
		`"poolSize": 300, "initTimeout": "59m"`:  "pool size must be 1-256",
		`"compileTimeout": "1h", "poolSize": -1`: "pool size must be 1-256",
	} {
		path := testkit.WriteConfig(t, `{"providers": [{"module": "good.wasm", "limits": {`+key+`}}]}`)
		cfg, err := readConfig(path)
		require.NoError(t, err, key)
		_, err = loader.Load(t.Context(), cfg)
		require.ErrorContains(t, err, want, key)
	}

	traps, err := os.ReadFile(testkit.Fixture("hostile", "traps.wasm"))
	require.NoError(t, err)
	path := testkit.WriteConfig(t, `{"providers": [{"module": "traps.wasm", "limits": {"quarantine": {"after": 1, "backoff": "1h", "maxBackoff": "2h"}}}]}`)
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(path), "traps.wasm"), traps, 0o644))
	cfg, err := readConfig(path)
	require.NoError(t, err)
	g, err := loader.Load(t.Context(), cfg)
	require.NoError(t, err)
	defer g.Close(t.Context())
	p := g.Providers()[0]
	_, err = p.Read(t.Context(), "evil:unreachable")
	require.ErrorIs(t, err, abi.ErrTrap)
	require.True(t, p.Stats().Quarantined, "one fault quarantines with after: 1")
	_, err = p.Read(t.Context(), "evil:good")
	require.ErrorIs(t, err, abi.ErrQuarantined, "for the hour of backoff")
}
