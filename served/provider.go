package served

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// Provider is one served provider: a module loaded in the runtime, under
// the name the server knows it by and, with a scheme prefix, with its URIs
// rewritten on the way in and out. It has the methods of server.Provider
// (Describe, List, Templates, Read, Complete), and Stats for metrics and
// readiness.
//
// A scheme prefix serves a provider under a prefix the operator chooses,
// so that two providers whose URI spaces overlap (two files providers, two
// copies of one module) can be served side by side: with prefix "docs" the
// provider's file:///a.txt is docs+file:///a.txt to clients. RFC 3986
// allows "+" in a scheme; clients treat URIs as opaque. The provider never
// sees the prefix: every URI is rewritten on the way in and out, and the
// server checks ownership against the prefixed URI space.
type Provider struct {
	rt     *runtime.Provider
	desc   abi.Describe // the runtime's effective describe, its uri space prefixed
	prefix string
	spec   config.Provider
	module Module
}

// newProvider serves a loaded runtime provider under the operator's scheme
// prefix. The operator's name and cache hint are already in the runtime
// provider's describe (config.Provider.RuntimeConfig): they are applied
// once, there, so that logs, metrics, the read cache and the server agree.
func newProvider(spec config.Provider, m Module, p *runtime.Provider) *Provider {
	m.Wasm = nil // loaded: the runtime keeps what it needs, and a Go guest is megabytes
	return &Provider{rt: p, desc: prefixDescribe(spec.SchemePrefix, p.Describe()), prefix: spec.SchemePrefix, spec: spec, module: m}
}

// Name is the name the server knows the provider by.
func (p *Provider) Name() string { return p.desc.Name }

// Describe returns the runtime provider's effective describe (the
// operator's name and cache hint applied), its URI space prefixed.
func (p *Provider) Describe() abi.Describe { return p.desc }

// Spec is the provider as configured.
func (p *Provider) Spec() config.Provider { return p.spec }

// Module is the module the provider was loaded from.
func (p *Provider) Module() Module { return p.module }

// Grants are the grants the provider was loaded with.
func (p *Provider) Grants() runtime.Grants { return p.rt.Config().Grants() }

// Stats is a provider's counters and gauges, for metrics and readiness.
type Stats struct {
	runtime.Stats
	// PoolSize is the most instances the provider keeps.
	PoolSize int
}

// Stats returns a snapshot of the provider's counters and gauges.
func (p *Provider) Stats() Stats {
	return Stats{Stats: p.rt.Stats(), PoolSize: p.rt.Config().PoolSize()}
}

// close closes the runtime provider; calls in flight finish first.
func (p *Provider) close(ctx context.Context) { _ = p.rt.Close(context.WithoutCancel(ctx)) }

// appScheme is the scheme of MCP Apps' user interfaces (ui://NAME/...):
// hosts render a resource as an app only under exactly this scheme, so a
// scheme prefix leaves it alone. Two providers' ui:// roots may then
// collide; abi.Conflicts refuses that at load and reload (conflicts).
const appScheme = "ui"

// isAppURI reports whether uri (or a URI template) is a ui:// URI.
func isAppURI(uri string) bool {
	scheme, _, ok := strings.Cut(uri, ":")
	return ok && strings.EqualFold(scheme, appScheme)
}

// prefixURI adds the prefix to the scheme of uri (or of a URI template,
// whose scheme is literal); a ui:// URI keeps its scheme.
func prefixURI(prefix, uri string) string {
	if prefix == "" || isAppURI(uri) {
		return uri
	}
	scheme, rest, ok := strings.Cut(uri, ":")
	if !ok {
		return uri
	}
	return prefix + "+" + strings.ToLower(scheme) + ":" + rest
}

// unprefixURI removes the prefix from a client's URI, or reports false
// when the URI is not under the prefix. A ui:// URI is the provider's as
// it is.
func unprefixURI(prefix, uri string) (string, bool) {
	if prefix == "" || isAppURI(uri) {
		return uri, true
	}
	n := len(prefix) + 1
	if len(uri) <= n || !strings.EqualFold(uri[:n], prefix+"+") {
		return "", false
	}
	return uri[n:], true
}

// prefixDescribe moves every root of d's URI space under the prefix, but
// for ui:// roots (appScheme).
func prefixDescribe(prefix string, d abi.Describe) abi.Describe {
	if prefix == "" {
		return d
	}
	roots := make([]abi.URIRoot, len(d.URISpace))
	for i, r := range d.URISpace {
		if !strings.EqualFold(r.Scheme, appScheme) {
			r.Scheme = prefix + "+" + r.Scheme
		}
		roots[i] = r
	}
	d.URISpace = roots
	return d
}

// List returns one page of the provider's resources, URIs prefixed.
func (p *Provider) List(ctx context.Context, cursor string) (*abi.ListResult, error) {
	res, err := p.rt.List(ctx, cursor)
	if err != nil || p.prefix == "" {
		return res, err
	}
	for i := range res.Resources {
		res.Resources[i].URI = prefixURI(p.prefix, res.Resources[i].URI)
	}
	return res, nil
}

// Templates returns one page of the provider's templates, prefixed.
func (p *Provider) Templates(ctx context.Context, cursor string) (*abi.TemplatesResult, error) {
	res, err := p.rt.Templates(ctx, cursor)
	if err != nil || p.prefix == "" {
		return res, err
	}
	for i := range res.ResourceTemplates {
		res.ResourceTemplates[i].URITemplate = prefixURI(p.prefix, res.ResourceTemplates[i].URITemplate)
	}
	return res, nil
}

// Read reads a URI: the provider reads it without the prefix.
func (p *Provider) Read(ctx context.Context, uri string) (*abi.ReadResult, error) {
	inner, ok := unprefixURI(p.prefix, uri)
	if !ok {
		return nil, fmt.Errorf("%w: uri is not under scheme prefix %q", abi.ErrNotFound, p.prefix)
	}
	res, err := p.rt.Read(ctx, inner)
	if err != nil || p.prefix == "" {
		return res, err
	}
	for i := range res.Contents {
		res.Contents[i].URI = prefixURI(p.prefix, res.Contents[i].URI)
	}
	return res, nil
}

// Complete completes a template argument: the provider sees its own
// template.
func (p *Provider) Complete(ctx context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error) {
	inner, ok := unprefixURI(p.prefix, req.Template)
	if !ok {
		return &abi.CompleteResult{Values: []string{}}, nil
	}
	req.Template = inner
	return p.rt.Complete(ctx, req)
}

// watchChanges runs the provider's change feed, URIs prefixed.
func (p *Provider) watchChanges(ctx context.Context, cfg runtime.ChangeFeedConfig, report func(*abi.ChangesResult)) error {
	return p.rt.WatchChanges(ctx, cfg, func(res *abi.ChangesResult) {
		for i := range res.Updated {
			res.Updated[i] = prefixURI(p.prefix, res.Updated[i])
		}
		report(res)
	})
}

// reportsChanges reports whether the provider has a change feed.
func (p *Provider) reportsChanges() bool { return p.rt.Supports(abi.OpChanges) }
