package config

import (
	"github.com/mcp-wasm/mcp-wasm/internal/oci"
	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy"
)

// Provenance in the config file: "module" may be an oci:// reference,
// "sha256" pins a module's bytes, and "policy" (top level, or per
// provider, which replaces the top-level one) says which signers to
// require and whether every module must be pinned:
//
//	"policy": {
//	  "requireDigest": true,
//	  "signers": [{"identity": "...", "issuer": "..."}, {"key": "cosign.pub"}],
//	  "trustedRoot": "trusted_root.json"
//	}
//
// Paths in a policy are relative to the config file's directory. The
// policy is compiled here (keys and trusted root read, expressions
// compiled); the module is checked against it where its bytes are
// resolved (package served, through internal/modsource).

// globalPolicy compiles the file's top-level policy, once for every
// provider; nil without one.
func globalPolicy(src *source, base string, ps *sigpolicy.Spec) (*sigpolicy.Policy, []string) {
	if ps == nil {
		return nil, nil
	}
	p, err := sigpolicy.Compile(*ps, base)
	if err != nil {
		return nil, []string{src.at("policy") + ": policy: " + err.Error()}
	}
	return p, nil
}

// resolveProvenance checks the pin and the policy of one provider entry,
// reporting problems at their keys, and returns the pin ("sha256:...")
// and the provider's policy: its own, else the file's.
func resolveProvenance(base string, pf providerFile, global *sigpolicy.Policy, bad func(string, string, ...any)) (string, *sigpolicy.Policy) {
	var pin string
	if pf.SHA256 != "" {
		d, err := oci.ParseDigest(pf.SHA256)
		if err != nil {
			bad("sha256", "%v (the module's sha256, as mcp-wasm lock writes it)", err)
		}
		pin = d
	}
	if pf.Policy == nil {
		return pin, global
	}
	p, err := sigpolicy.Compile(*pf.Policy, base)
	if err != nil {
		bad("policy", "%v", err)
	}
	return pin, p
}

// checkRef reports a malformed oci:// reference at the module key. Other
// schemes are the Resolver's to know.
func checkRef(ref ModuleRef, bad func(string, string, ...any)) {
	if !oci.IsRef(string(ref)) {
		return
	}
	if _, err := oci.ParseRef(string(ref)); err != nil {
		bad("module", "%v", err)
	}
}
