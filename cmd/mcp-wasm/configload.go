package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// served is a loaded provider as the server sees it: the operator's name
// and cache hint, when the config file gives them, replace the module's.
// Embedding keeps every other method of the runtime provider visible.
type served struct {
	*runtime.Provider
	desc  abi.Describe
	mount string // scheme prefix, see mount.go; "" serves the provider's own URIs
}

// Describe returns the describe with the operator's overrides.
func (s *served) Describe() abi.Describe { return s.desc }

// Name returns the name the server knows the provider by.
func (s *served) Name() string { return s.desc.Name }

// providerSet is the providers of one config generation.
type providerSet []*served

// serverProviders returns the set as server.Providers.
func (ps providerSet) serverProviders() []server.Provider {
	out := make([]server.Provider, len(ps))
	for i, p := range ps {
		out[i] = p
	}
	return out
}

// close closes every provider of the set.
func (ps providerSet) close(ctx context.Context) {
	for _, p := range ps {
		_ = p.Close(context.WithoutCancel(ctx))
	}
}

// loadSet compiles, initializes and checks every provider of cc. It
// reports the problems of all providers at once, each at its line, and
// returns nothing loaded on any problem.
func loadSet(ctx context.Context, rt *runtime.Runtime, cc *checkedConfig, log *slog.Logger) (providerSet, error) {
	var set providerSet
	var problems []string
	for _, spec := range cc.providers {
		p, err := rt.LoadFile(ctx, spec.module, spec.cfg)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: load %s: %v", cc.where(spec, "module"), spec.module, err))
			continue
		}
		s, err := override(cc, spec, p)
		if err != nil {
			_ = p.Close(context.WithoutCancel(ctx))
			problems = append(problems, err.Error())
			continue
		}
		log.Debug("provider loaded", "provider", s.desc.Name, "module", spec.module, "uri_space", uriSpace(s.desc))
		set = append(set, s)
	}
	if len(problems) == 0 {
		problems = checkSet(cc, set)
	}
	if len(problems) > 0 {
		set.close(ctx)
		return nil, &configError{cc.src.name, problems}
	}
	return set, nil
}

// override applies the operator's name and cache hint to p's describe and
// checks the result under the abi rules.
func override(cc *checkedConfig, spec providerSpec, p *runtime.Provider) (*served, error) {
	d := p.Describe()
	if spec.name != "" {
		d.Name = spec.name
		if err := d.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %q is not a provider name: use 1-%d of [a-z0-9._-], starting with a letter or digit", cc.where(spec, "name"), spec.name, abi.MaxNameLength)
		}
	}
	if spec.cache != nil {
		c := *spec.cache
		d.Cache = &c
		if err := d.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %v", cc.where(spec, "cache"), err)
		}
	}
	return &served{Provider: p, desc: mountDescribe(spec.mount, d), mount: spec.mount}, nil
}

// checkSet refuses two providers with one name or with overlapping uri
// spaces (abi.Conflicts), naming both lines. server.New and SetProviders
// apply the same rule and stay the final word; this only says where in the
// file to look.
func checkSet(cc *checkedConfig, set providerSet) []string {
	descs := make([]abi.Describe, len(set))
	for i, s := range set {
		descs[i] = s.desc
	}
	var problems []string
	for _, c := range abi.Conflicts(descs) {
		pa, pb := cc.providers[c.A], cc.providers[c.B]
		if c.SameName {
			problems = append(problems, fmt.Sprintf("%s: provider name %q is also used by %s at line %d: "+
				"give one of them another \"name\"", cc.where(pb, ""), c.Name, pa.path, cc.src.line(pa.path)))
		} else {
			problems = append(problems, fmt.Sprintf("%s: claims %s, which overlaps %s claimed by %s at line %d: "+
				"give one of them a \"mount\" (e.g. \"mount\": \"docs\" serves docs+file:///...), or serve only one", cc.where(pb, ""), c.RootB, c.RootA, pa.path, cc.src.line(pa.path)))
		}
	}
	return problems
}

// summary describes a loaded set for validate and the logs, one provider a
// line, with grants shown by key only (values may be secrets).
func summary(cc *checkedConfig, set providerSet) string {
	var b strings.Builder
	for i, s := range set {
		spec := cc.providers[i]
		cfg := s.Config()
		// termLine: the version is the guest's, the rest the operator's;
		// none may act on the terminal.
		fmt.Fprintf(&b, "  %s (line %d): %s %s\n", termLine(s.desc.Name, 100), cc.src.line(spec.path), termLine(spec.module, 1000), termLine(s.desc.Version, 100))
		fmt.Fprintf(&b, "    uri space:  %s\n", termLine(uriSpace(s.desc), 2000))
		fmt.Fprintf(&b, "    operations: %s\n", strings.Join(s.desc.Operations, ", "))
		fmt.Fprintf(&b, "    grants:     %s\n", termLine(cfg.Grants().String(), 4000))
		fmt.Fprintf(&b, "    limits:     %s\n", termLine(fmt.Sprint(spec.limits), 1000))
	}
	return b.String()
}
