package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/served"
)

// The flags of where a module comes from and what it must satisfy, and
// how a resolved module is shown. The resolving itself is served's
// (served.Verified over internal/modsource), wired in configserve.go.

// registryFlag is accepted by every command: plain-HTTP registries.
func registryFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "insecure-registry", Usage: "reach registry `HOST[:PORT]` over plain HTTP (a local registry you trust); every other registry is HTTPS only (repeatable)"}
}

// policyFlags are the signature policy of the modules given on the
// command line (a config file has its own "policy").
func policyFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "require-digest", Usage: "refuse a module that is not pinned by digest (oci://...@sha256:..., or \"sha256\" in a config file)"},
		&cli.StringSliceFlag{Name: "signature-key", Usage: "require a signature by the public key in `FILE` (PEM, cosign.pub) (repeatable)"},
		&cli.StringSliceFlag{Name: "signature-identity", Usage: "require a keyless signature by certificate identity `ID` (an email or workflow URI), with --signature-issuer (repeatable)"},
		&cli.StringSliceFlag{Name: "signature-identity-regexp", Usage: "like --signature-identity, a regular expression `RE` matching the whole identity (repeatable)"},
		&cli.StringFlag{Name: "signature-issuer", Usage: "the OIDC issuer `URL` of the identities (https://token.actions.githubusercontent.com, ...)"},
		&cli.StringFlag{Name: "signature-issuer-regexp", Usage: "the OIDC issuer as a regular expression `RE` matching the whole issuer"},
		&cli.StringFlag{Name: "trusted-root", Usage: "Sigstore trusted root `FILE` (trusted_root.json) keyless signatures are checked against, offline"},
	}
}

// policySpecFromFlags turns the policy flags into a sigpolicy.Spec.
func policySpecFromFlags(c *cli.Context) sigpolicy.Spec {
	spec := sigpolicy.Spec{RequireDigest: c.Bool("require-digest"), TrustedRoot: c.String("trusted-root")}
	for _, k := range c.StringSlice("signature-key") {
		spec.Signers = append(spec.Signers, sigpolicy.Signer{Key: k})
	}
	issuer := sigpolicy.Signer{Issuer: c.String("signature-issuer"), IssuerRegexp: c.String("signature-issuer-regexp")}
	for _, id := range c.StringSlice("signature-identity") {
		s := issuer
		s.Identity = id
		spec.Signers = append(spec.Signers, s)
	}
	for _, re := range c.StringSlice("signature-identity-regexp") {
		s := issuer
		s.IdentityRegexp = re
		spec.Signers = append(spec.Signers, s)
	}
	if (issuer.Issuer != "" || issuer.IssuerRegexp != "") && len(c.StringSlice("signature-identity"))+len(c.StringSlice("signature-identity-regexp")) == 0 {
		spec.Signers = append(spec.Signers, issuer) // Compile says an identity is missing
	}
	return spec
}

// policyFromFlags compiles the policy flags; nil when none is given.
func policyFromFlags(c *cli.Context) (*sigpolicy.Policy, error) {
	spec := policySpecFromFlags(c)
	if spec.IsZero() {
		return nil, nil
	}
	p, err := sigpolicy.Compile(spec, "")
	if err != nil {
		return nil, usageError("signature policy: %v", err)
	}
	return p, nil
}

// moduleSizeFlag is --max-module-size in bytes (push and pull).
func moduleSizeFlag(c *cli.Context) (int, error) {
	n, err := config.ParseSize(c.String("max-module-size"))
	if err != nil {
		return 0, usageError("--max-module-size: %v", err)
	}
	return config.ClampInt(n), nil
}

// printModule says where a module came from, for inspect and pull: its
// source, digest and signatures, and the signer verified under pol.
func printModule(w io.Writer, m served.Module, pol *sigpolicy.Policy) {
	row := func(k, format string, args ...any) { fmt.Fprintf(w, "%-11s %s\n", k, fmt.Sprintf(format, args...)) }
	row("source", "%s", termLine(moduleSource(m), 1000))
	row("sha256", "%s", m.Digest)
	if m.Offline {
		row("", "(from the module store, without asking the registry)")
	}
	if len(m.Signatures) == 0 {
		row("signatures", "none")
	}
	for i, s := range m.Signatures {
		k := ""
		if i == 0 {
			k = "signatures"
		}
		row(k, "%s", termLine(s, 1000))
	}
	switch {
	case m.Signer != "":
		row("signer", "%s (verified: %s)", termLine(m.Signer, 1000), termLine(pol.Wanted(), 2000))
	case len(m.Signatures) > 0:
		row("signer", "not verified: give --signature-identity/--signature-key (and --trusted-root) to check")
	}
}

// moduleSource is where a module came from, for people: the reference
// pinned to its manifest, or the reference as given.
func moduleSource(m served.Module) string {
	if m.Pinned != "" {
		return string(m.Pinned)
	}
	return string(m.Ref)
}

// moduleInfo is where a module came from, in inspect --json.
type moduleInfo struct {
	Source     string   `json:"source"`
	SHA256     string   `json:"sha256"`
	Signatures []string `json:"signatures"`
	Signer     string   `json:"signer,omitempty"` // verified against the policy flags
}

// inspectJSON is inspect's report with the module's provenance.
type inspectJSON struct {
	runtime.Report
	Module moduleInfo `json:"module"`
}

func moduleInfoOf(m served.Module) moduleInfo {
	mi := moduleInfo{Source: moduleSource(m), SHA256: m.Digest, Signatures: m.Signatures, Signer: m.Signer}
	if mi.Signatures == nil {
		mi.Signatures = []string{}
	}
	return mi
}
