package main

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/internal/modsource"
	"github.com/mcp-wasm/mcp-wasm/internal/oci"
	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// Where a module's bytes come from: a file, or an oci:// reference pulled
// into the module store under the cache directory, checked against its
// pin and the signature policy (internal/modsource). Every command that
// loads a module goes through moduleLoader.resolve; the wiring into each
// command is one call.

// resolveTimeout bounds fetching one module, its manifest and its
// signatures, so that a registry that trickles bytes cannot hold a start
// or a reload forever (connecting is bounded at 10 s and the first byte of
// each answer at 30 s by the client).
const resolveTimeout = 5 * time.Minute

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

// moduleLoader resolves module references for one command.
type moduleLoader struct {
	res    *modsource.Resolver
	policy *sigpolicy.Policy // the flags'; a config file gives each provider its own
	log    *slog.Logger
}

// newModuleLoader builds the resolver from the common flags: the store
// under --cache-dir, the registries reached over plain HTTP, and the
// policy flags when the command has them.
func newModuleLoader(c *cli.Context, log *slog.Logger, insecure ...string) (*moduleLoader, error) {
	var store *oci.Store
	if dir := c.String("cache-dir"); dir != "" {
		var err error
		if store, err = oci.OpenStore(filepath.Join(dir, "modules")); err != nil {
			return nil, failure(err)
		}
	}
	client := oci.NewClient(oci.Options{Insecure: append(c.StringSlice("insecure-registry"), insecure...), UserAgent: "mcp-wasm/" + version})
	ml := &moduleLoader{res: modsource.New(store, client), log: log}
	if c.Command.HasName("serve") || c.Command.HasName("call") || c.Command.HasName("inspect") || c.Command.HasName("pull") {
		p, err := policyFromFlags(c)
		if err != nil {
			return nil, err
		}
		ml.policy = p
	}
	return ml, nil
}

// resolve turns a module reference into verified bytes. pol nil means the
// flags' policy.
func (ml *moduleLoader) resolve(ctx context.Context, module, sha256 string, pol *sigpolicy.Policy, maxSize int64, refresh bool) (*modsource.Module, error) {
	if pol == nil {
		pol = ml.policy
	}
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	m, err := ml.res.Resolve(ctx, modsource.Request{Module: module, SHA256: sha256, Policy: pol, MaxSize: maxSize, Refresh: refresh})
	if err != nil {
		return nil, err
	}
	for _, n := range m.Notes {
		ml.log.Warn(n, "module", module)
	}
	attrs := []any{"module", m.Source, "sha256", m.Digest}
	if m.Signer != nil {
		attrs = append(attrs, "signer", m.Signer.String())
	}
	ml.log.Debug("module resolved", attrs...)
	return m, nil
}

// load resolves a module and loads it into rt.
func (ml *moduleLoader) load(ctx context.Context, rt *runtime.Runtime, module, sha256 string, pol *sigpolicy.Policy, maxSize int64, cfg runtime.ProviderConfig) (*runtime.Provider, *modsource.Module, error) {
	m, err := ml.resolve(ctx, module, sha256, pol, maxSize, false)
	if err != nil {
		return nil, nil, err
	}
	p, err := rt.Load(ctx, moduleHint(module), m.Wasm, cfg)
	if err != nil {
		return nil, nil, err
	}
	return p, m, nil
}

// moduleHint names a module in errors until its describe names it: the
// file name, or the repository's last part and tag.
func moduleHint(module string) string {
	if r, err := oci.ParseRef(module); err == nil {
		name := r.Repository[strings.LastIndexByte(r.Repository, '/')+1:]
		if r.Tag != "" {
			return name + ":" + r.Tag
		}
		return name + "@" + oci.ShortDigest(r.Digest)
	}
	return filepath.Base(module)
}

// moduleSizeFlag is --max-module-size in bytes.
func moduleSizeFlag(c *cli.Context) (int64, error) {
	n, err := parseSize(c.String("max-module-size"))
	if err != nil {
		return 0, usageError("--max-module-size: %v", err)
	}
	return int64(min(n, 1<<40)), nil
}

// moduleRows describes where a module came from, for inspect and pull.
func moduleRows(row func(k, format string, args ...any), m *modsource.Module, pol *sigpolicy.Policy) {
	row("source", "%s", termLine(m.Source, 1000))
	row("sha256", "%s", m.Digest)
	if m.Offline && m.Ref != nil {
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
	case m.Signer != nil:
		row("signer", "%s (verified: %s)", termLine(m.Signer.String(), 1000), termLine(pol.Wanted(), 2000))
	case len(m.Signatures) > 0:
		row("signer", "not verified: give --signature-identity/--signature-key (and --trusted-root) to check")
	}
}

// inspectModule resolves inspect's argument under the policy flags.
func inspectModule(c *cli.Context, log *slog.Logger, module string) (*modsource.Module, *sigpolicy.Policy, error) {
	ml, err := newModuleLoader(c, log)
	if err != nil {
		return nil, nil, err
	}
	maxSize, err := moduleSizeFlag(c)
	if err != nil {
		return nil, nil, err
	}
	m, err := ml.resolve(c.Context, module, "", nil, maxSize, false)
	if err != nil {
		return nil, nil, failure(err)
	}
	return m, ml.policy, nil
}

// moduleInfo is where a module came from, in inspect --json.
type moduleInfo struct {
	Source     string   `json:"source"`
	SHA256     string   `json:"sha256"`
	Signatures []string `json:"signatures"`
	Signer     string   `json:"signer,omitempty"` // verified against the policy flags
}

func moduleInfoOf(m *modsource.Module) moduleInfo {
	mi := moduleInfo{Source: m.Source, SHA256: m.Digest, Signatures: m.Signatures}
	if mi.Signatures == nil {
		mi.Signatures = []string{}
	}
	if m.Signer != nil {
		mi.Signer = m.Signer.String()
	}
	return mi
}

// inspectJSON is inspect's report with the module's provenance.
type inspectJSON struct {
	runtime.Report
	Module moduleInfo `json:"module"`
}
