package main

import (
	"github.com/mcp-wasm/mcp-wasm/internal/modsource"
	"github.com/mcp-wasm/mcp-wasm/internal/oci"
	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// Provenance in the config file: "module" may be an oci:// reference,
// "sha256" pins a module's bytes, and "policy" (top level, or per
// provider, which replaces the top level one) says which signers to
// require and whether every module must be pinned:
//
//	"policy": {
//	  "requireDigest": true,
//	  "signers": [{"identity": "...", "issuer": "..."}, {"key": "cosign.pub"}],
//	  "trustedRoot": "trusted_root.json"
//	}
//
// Paths in a policy are relative to the config file's directory.

// resolveProvenance checks the module reference, the pin and the policy
// of one provider entry, reporting problems at their keys.
func resolveProvenance(spec *providerSpec, base string, pf providerFile, global *sigpolicy.Spec, bad func(string, string, ...any)) {
	if modsource.IsRef(pf.Module) {
		if _, err := oci.ParseRef(pf.Module); err != nil {
			bad("module", "%v", err)
		}
	}
	if pf.SHA256 != "" {
		d, err := oci.ParseDigest(pf.SHA256)
		if err != nil {
			bad("sha256", "%v (the module's sha256, as mcp-wasm lock writes it)", err)
		}
		spec.sha256 = d
	}
	spec.maxModule = runtime.DefaultModuleSizeLimit
	if pf.Limits.ModuleSize != nil {
		spec.maxModule = int64(clampInt(*pf.Limits.ModuleSize))
	}
	key, ps := "policy", pf.Policy
	if ps == nil {
		key, ps = "", global
	}
	if ps == nil {
		return
	}
	p, err := sigpolicy.Compile(*ps, base)
	if err != nil {
		if key != "" { // the file's policy is reported once, by globalPolicyProblems
			bad(key, "%v", err)
		}
		return
	}
	spec.policy = p
}

// globalPolicyProblems checks the file's top-level policy.
func globalPolicyProblems(src *configSource, base string, ps *sigpolicy.Spec) []string {
	if ps == nil {
		return nil
	}
	if _, err := sigpolicy.Compile(*ps, base); err != nil {
		return []string{src.at("policy") + ": policy: " + err.Error()}
	}
	return nil
}

// insecureRegistries are the plain-HTTP registries the file names.
func (c *checkedConfig) insecureRegistries() []string {
	if c == nil {
		return nil
	}
	return c.server.InsecureRegistries
}
