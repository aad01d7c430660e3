package server

import (
	"context"
	"maps"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// Bounds on completion input, checked before any provider sees it.
const (
	maxArgName     = 256
	maxContextArgs = 32
	refResource    = "ref/resource"
)

// complete serves completion/complete. A ref/resource is routed to the
// provider whose uri space holds the template (every template in a space
// belongs to its provider); anything else — prompts, unknown templates, a
// provider that does not know the template — gets no values, not an error.
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (mcp.Result, error) {
	res, err := s.completeParams(ctx, req.Params)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// completeParams is the one path of completion/complete and of the
// complete_resource_argument tool.
func (s *Server) completeParams(ctx context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, *jsonrpc.Error) {
	if err := checkComplete(p); err != nil {
		return nil, err
	}
	if p.Ref.Type != refResource {
		return noValues(), nil
	}
	set := s.acquireFor(ctx)
	defer set.release()
	m := set.templateOwner(p.Ref.URI)
	if m == nil || !m.has(abi.OpComplete) || !m.allowsTemplate(p.Ref.URI) {
		return noValues(), nil
	}
	in := abi.CompleteRequest{
		Template: p.Ref.URI,
		Argument: abi.CompleteArgument{Name: p.Argument.Name, Value: p.Argument.Value},
	}
	if p.Context != nil && len(p.Context.Arguments) > 0 {
		in.Arguments = maps.Clone(p.Context.Arguments)
	}
	res, err := callProvider(ctx, s.cfg.callTimeout, m, abi.OpComplete, func(ctx context.Context) (*abi.CompleteResult, error) {
		return m.p.Complete(ctx, in)
	})
	if err != nil {
		if m.classify(ctx, abi.OpComplete, err) == failFault {
			return nil, internalError()
		}
		return noValues(), nil
	}
	return toCompletion(visibleValues(set, m, in, res)), nil
}

// passEscapes undoes the expansion's escaping of '%': RFC 6570 lets a
// {+var} pass "%2D" through as written, where uritemplate writes "%252D",
// and a client may expand either way (or substitute the value as it is).
// A value is offered only when both spellings are visible.
func passEscapes(uri string) string { return strings.ReplaceAll(uri, "%25", "%") }

// visibleValues keeps the completion values whose URI a read would serve:
// the template expanded with the value (and the other arguments of the
// request's context, unset ones empty) must pass checkURI, belong to m and
// be visible through m's filter, however a client spells it
// (passEscapes). A provider that offers drafts/secret.md
// for a template whose literal prefix is visible cannot reveal through
// completion a name that the operator's exclude pattern hides. When a
// value is dropped, the provider's total (which counted it) is dropped
// too.
func visibleValues(set *providerSet, m *backend, in abi.CompleteRequest, res *abi.CompleteResult) *abi.CompleteResult {
	if res == nil || len(res.Values) == 0 {
		return res
	}
	tmpl, err := uritemplate.New(in.Template)
	if err != nil {
		return nil // the template was checked against m's space: unreachable
	}
	vars := uritemplate.Values{}
	for k, v := range in.Arguments {
		vars.Set(k, uritemplate.String(v))
	}
	out := *res
	out.Values = make([]string, 0, min(len(res.Values), abi.MaxCompletionValues))
	for i, v := range res.Values {
		if i == abi.MaxCompletionValues {
			out.HasMore = true // toCompletion would cut here anyway
			break
		}
		vars.Set(in.Argument.Name, uritemplate.String(v))
		if uri, err := tmpl.Expand(vars); err == nil && set.reads(uri) == m && set.reads(passEscapes(uri)) == m {
			out.Values = append(out.Values, v)
		}
	}
	if len(out.Values) < min(len(res.Values), abi.MaxCompletionValues) {
		out.Total = nil
	}
	return &out
}

func checkComplete(p *mcp.CompleteParams) *jsonrpc.Error {
	switch {
	case p == nil || p.Ref == nil:
		return invalidParams("missing ref")
	case p.Argument.Name == "":
		return invalidParams("missing argument.name")
	case len(p.Argument.Name) > maxArgName || len(p.Argument.Value) > abi.MaxTextField:
		return invalidParams("argument too long")
	case len(p.Ref.URI) > abi.MaxURILength:
		return invalidParams("ref uri too long")
	}
	if p.Context != nil {
		if len(p.Context.Arguments) > maxContextArgs {
			return invalidParams("more than %d context arguments", maxContextArgs)
		}
		for k, v := range p.Context.Arguments {
			if len(k) > maxArgName || len(v) > abi.MaxTextField {
				return invalidParams("context argument too long")
			}
		}
	}
	return nil
}

// templateOwner returns the provider whose uri space holds every expansion
// of tmpl (a template or a plain uri), or nil.
func (ps *providerSet) templateOwner(tmpl string) *backend {
	for _, m := range ps.backends {
		if abi.CheckTemplate(tmpl, m.space) == nil {
			return m
		}
	}
	return nil
}

func noValues() *mcp.CompleteResult {
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
}

// toCompletion bounds provider values to abi.MaxCompletionValues (setting
// hasMore when it cuts) and keeps total only when it is consistent.
func toCompletion(res *abi.CompleteResult) *mcp.CompleteResult {
	out := noValues()
	if res == nil {
		return out
	}
	vals := res.Values
	if len(vals) > abi.MaxCompletionValues {
		vals, out.Completion.HasMore = vals[:abi.MaxCompletionValues], true
	}
	for _, v := range vals {
		if len(v) <= abi.MaxTextField {
			out.Completion.Values = append(out.Completion.Values, v)
		}
	}
	out.Completion.HasMore = out.Completion.HasMore || res.HasMore
	if res.Total != nil && *res.Total >= len(out.Completion.Values) {
		out.Completion.Total = *res.Total
	}
	return out
}
