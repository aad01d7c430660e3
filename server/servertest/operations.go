package servertest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// List implements server.Provider.
func (p *Provider) List(ctx context.Context, cursor string) (*abi.ListResult, error) {
	if err := p.before(ctx, abi.OpList, cursor); err != nil {
		return nil, err
	}
	lo, hi, next, err := p.pageBounds(cursor, len(p.resources))
	if err != nil {
		return nil, err
	}
	return &abi.ListResult{Resources: slices.Clone(p.resources[lo:hi]), NextCursor: next}, nil
}

// Templates implements server.Provider.
func (p *Provider) Templates(ctx context.Context, cursor string) (*abi.TemplatesResult, error) {
	if err := p.before(ctx, abi.OpTemplates, cursor); err != nil {
		return nil, err
	}
	lo, hi, next, err := p.pageBounds(cursor, len(p.templates))
	if err != nil {
		return nil, err
	}
	out := &abi.TemplatesResult{ResourceTemplates: []abi.ResourceTemplate{}, NextCursor: next}
	for _, t := range p.templates[lo:hi] {
		out.ResourceTemplates = append(out.ResourceTemplates, t.ResourceTemplate)
	}
	return out, nil
}

// Read implements server.Provider: a stored resource, else a URI matching a
// template (answered with JSON naming the variables), else abi.ErrNotFound.
func (p *Provider) Read(ctx context.Context, uri string) (*abi.ReadResult, error) {
	if err := p.before(ctx, abi.OpRead, uri); err != nil {
		return nil, err
	}
	if c, ok := p.contents[uri]; ok {
		return &abi.ReadResult{Contents: []abi.Content{c}}, nil
	}
	for _, t := range p.templates {
		vals := t.parsed.Match(uri)
		if vals == nil {
			continue
		}
		doc := map[string]string{}
		for _, name := range t.parsed.Varnames() {
			doc[name] = vals.Get(name).String()
		}
		data, err := json.Marshal(doc)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", abi.ErrProviderInternal, err)
		}
		text := string(data)
		return &abi.ReadResult{Contents: []abi.Content{{URI: uri, MIMEType: "application/json", Text: &text}}}, nil
	}
	return nil, fmt.Errorf("%w: %s", abi.ErrNotFound, uri)
}

// Complete implements server.Provider: the template's values that start
// with the argument's value, or abi.ErrNotFound for an unknown template.
func (p *Provider) Complete(ctx context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error) {
	if err := p.before(ctx, abi.OpComplete, req.Template); err != nil {
		return nil, err
	}
	for _, t := range p.templates {
		if t.URITemplate != req.Template {
			continue
		}
		if !slices.Contains(t.parsed.Varnames(), req.Argument.Name) {
			return nil, fmt.Errorf("%w: no argument %q", abi.ErrInvalidParams, req.Argument.Name)
		}
		out := &abi.CompleteResult{Values: []string{}}
		for _, v := range t.values {
			if strings.HasPrefix(v, req.Argument.Value) {
				out.Values = append(out.Values, v)
			}
		}
		total := len(out.Values)
		out.Total = &total
		return out, nil
	}
	return nil, fmt.Errorf("%w: template", abi.ErrNotFound)
}
