package served

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// Loader turns a config into loaded providers: it resolves each module,
// loads it in the runtime with the operator's name, cache hint, limits and
// grants (config.Provider.RuntimeConfig), applies the scheme prefix, and
// checks the set.
type Loader struct {
	rt      *runtime.Runtime
	resolve Resolver
	log     *slog.Logger
}

// NewLoader returns a Loader loading into rt, reading modules through
// resolve (nil: ResolveFile), logging to log (nil: discard).
func NewLoader(rt *runtime.Runtime, resolve Resolver, log *slog.Logger) *Loader {
	if resolve == nil {
		resolve = ResolveFile
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Loader{rt: rt, resolve: resolve, log: log}
}

// Generation is one loaded provider set: the providers of one config, in
// its order. It is immutable; close it once nothing serves it.
type Generation struct {
	cfg       *config.Config
	providers []*Provider
	stamps    map[string]fileStamp // watched files when the load began (watch.go)
}

// Config is the config the generation was loaded from.
func (g *Generation) Config() *config.Config { return g.cfg }

// Providers returns the providers, in the config's order.
func (g *Generation) Providers() []*Provider { return append([]*Provider(nil), g.providers...) }

// Close closes every provider; calls in flight finish first.
func (g *Generation) Close(ctx context.Context) {
	for _, p := range g.providers {
		p.close(ctx)
	}
}

// Load loads every provider of cfg and checks that the set can be served
// (distinct names, disjoint uri spaces: abi.Conflicts). It reports the
// problems of all providers at once, each at its line when cfg comes from
// a file, and returns nothing loaded on any problem.
func (l *Loader) Load(ctx context.Context, cfg *config.Config) (*Generation, error) {
	g := &Generation{cfg: cfg, stamps: stampFiles(watchedFiles(cfg))}
	var problems []string
	for _, spec := range cfg.Providers {
		p, err := l.loadOne(ctx, spec)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		l.log.Debug("provider loaded", "provider", p.Name(), "module", spec.Module, "digest", p.module.Digest, "uri_space", URISpace(p.desc))
		g.providers = append(g.providers, p)
	}
	if len(problems) == 0 {
		problems = conflicts(g.providers)
	}
	if len(problems) > 0 {
		g.Close(ctx)
		if cfg.File == "" && len(problems) == 1 {
			return nil, fmt.Errorf("%s", problems[0])
		}
		return nil, &config.Error{File: cfg.File, Problems: problems}
	}
	return g, nil
}

// loadOne resolves and loads one provider. The operator's name is checked
// first, so that a bad one is refused at its key without compiling.
func (l *Loader) loadOne(ctx context.Context, spec config.Provider) (*Provider, error) {
	if spec.Name != "" && !abi.ValidName(spec.Name) {
		return nil, fmt.Errorf("%s%q is not a provider name: use 1-%d of [a-z0-9._-], starting with a letter or digit", where(spec, "name"), spec.Name, abi.MaxNameLength)
	}
	m, err := l.Resolve(ctx, RequestFor(spec))
	var rp *runtime.Provider
	if err == nil {
		rp, err = l.rt.Load(ctx, ModuleHint(spec.Module), m.Wasm, spec.RuntimeConfig())
	}
	if err != nil {
		return nil, fmt.Errorf("%sload %s: %w", where(spec, "module"), spec.Module, err)
	}
	return newProvider(spec, m, rp), nil
}

// Resolve resolves one module through the loader's resolver, logging the
// notes the source had (a registry that could not be reached, ...) and, at
// debug level, where the module came from. Every module the loader loads
// comes through here; inspect, call, pull and lock use it too.
func (l *Loader) Resolve(ctx context.Context, req Request) (Module, error) {
	m, err := l.resolve(ctx, req)
	if err != nil {
		return Module{}, err
	}
	if err := checkPin(req, m); err != nil { // whatever the resolver, a pin holds
		return Module{}, err
	}
	for _, n := range m.Notes {
		l.log.Warn(n, "module", req.Ref)
	}
	attrs := []any{"module", req.Ref, "digest", m.Digest}
	if m.Pinned != "" {
		attrs = append(attrs, "pinned", m.Pinned)
	}
	if m.Signer != "" {
		attrs = append(attrs, "signer", m.Signer)
	}
	l.log.Debug("module resolved", attrs...)
	return m, nil
}

// where is the provider's position in its config file followed by ": ",
// or "" for a provider from flags.
func where(spec config.Provider, key string) string {
	if w := spec.Where(key); w != "" {
		return w + ": "
	}
	return ""
}

// conflicts refuses two providers with one name or with overlapping uri
// spaces (abi.Conflicts), naming both. server.New and SetProviders apply
// the same rule and stay the final word; this says where to look.
func conflicts(ps []*Provider) []string {
	descs := make([]abi.Describe, len(ps))
	for i, p := range ps {
		descs[i] = p.desc
	}
	var problems []string
	for _, c := range abi.Conflicts(descs) {
		a, b := ps[c.A].spec, ps[c.B].spec
		other := a.Key()
		if line := a.Line(); line > 0 {
			other += fmt.Sprintf(" at line %d", line)
		}
		subject := strings.TrimSuffix(where(b, ""), ": ")
		if subject == "" {
			subject = b.Key()
		}
		switch {
		case c.SameName:
			problems = append(problems, fmt.Sprintf("%s: provider name %q is also used by %s: "+
				"give one of them another \"name\"", subject, c.Name, other))
		case strings.EqualFold(c.RootA.Scheme, appScheme) && strings.EqualFold(c.RootB.Scheme, appScheme):
			problems = append(problems, fmt.Sprintf("%s: claims %s, which overlaps %s claimed by %s: "+
				"ui:// resources (MCP Apps) keep their scheme under a \"schemePrefix\", so two providers cannot share a ui:// authority: "+
				"serve only one of them, or rebuild one to name its apps under another ui:// authority", subject, c.RootB, c.RootA, other))
		default:
			problems = append(problems, fmt.Sprintf("%s: claims %s, which overlaps %s claimed by %s: "+
				"give one of them a \"schemePrefix\" (e.g. \"schemePrefix\": \"docs\" serves docs+file:///...), or serve only one", subject, c.RootB, c.RootA, other))
		}
	}
	return problems
}

// URISpace renders a provider's URI roots for logs.
func URISpace(d abi.Describe) string {
	roots := make([]string, len(d.URISpace))
	for i, r := range d.URISpace {
		roots[i] = r.String()
	}
	return strings.Join(roots, " ")
}
