package server

import (
	"context"
	"fmt"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listResources serves resources/list: one merged page across providers.
func (s *Server) listResources(ctx context.Context, req *mcp.ListResourcesRequest) (mcp.Result, error) {
	var cursor string
	var meta map[string]any
	if req.Params != nil {
		cursor, meta = req.Params.Cursor, req.Params.Meta
	}
	items, st, next, err := listPage(ctx, s, revisionOf(req, meta), cursor, kindResources, abi.OpList, s.fetchResources, resourceFor)
	if err != nil {
		return nil, err
	}
	return &listResourcesResult{stateless: st, Resources: items, NextCursor: next}, nil
}

// listTemplates serves resources/templates/list: one merged page across
// providers, holding only templates that parse and stay in their
// provider's uri space.
func (s *Server) listTemplates(ctx context.Context, req *mcp.ListResourceTemplatesRequest) (mcp.Result, error) {
	var cursor string
	var meta map[string]any
	if req.Params != nil {
		cursor, meta = req.Params.Cursor, req.Params.Meta
	}
	items, st, next, err := listPage(ctx, s, revisionOf(req, meta), cursor, kindTemplates, abi.OpTemplates, s.fetchTemplates, templateFor)
	if err != nil {
		return nil, err
	}
	return &listTemplatesResult{stateless: st, ResourceTemplates: items, NextCursor: next}, nil
}

// listPage serves one client page of a merged list on the provider set of
// this request: it decodes the cursor, collects the page, shapes every item
// for the revision and returns the page's cache fields and next cursor.
func listPage[T any](ctx context.Context, s *Server, rev revision, cursor, kind, op string,
	fetch func(context.Context, *backend, string) ([]T, string, error), shape func(T, revision) T,
) ([]T, stateless, string, error) {
	set := s.acquire()
	defer set.release()
	pos, err := s.startPosition(set.backends, kind, cursor)
	if err != nil {
		return nil, stateless{}, "", err
	}
	l := lister[T]{op: op, backends: set.backends, fetch: fetch}
	items, next := l.page(ctx, s, pos)
	out := make([]T, len(items))
	for i, item := range items {
		out[i] = shape(item, rev)
	}
	return out, newStateless(rev, set.listCache), s.nextCursor(next), nil
}

// startPosition decodes a client cursor ("" starts the listing) against
// the providers of this request.
func (s *Server) startPosition(backends []*backend, kind, cursor string) (position, error) {
	if cursor == "" {
		return firstPosition(backends, kind), nil
	}
	pos, err := s.cursors.decode(cursor)
	if err == nil {
		err = pos.valid(kind, backends)
	}
	if err != nil {
		s.log.Debug("client cursor refused", "error", err)
		return position{}, invalidParams("%v: list again without a cursor", err)
	}
	return pos, nil
}

func (s *Server) nextCursor(pos *position) string {
	if pos == nil {
		return ""
	}
	return s.cursors.encode(*pos)
}

// fetchResources calls one provider's list under its own deadline and keeps
// the resources inside its uri space.
func (s *Server) fetchResources(ctx context.Context, m *backend, cursor string) ([]abi.Resource, string, error) {
	res, err := callProvider(ctx, s.cfg.callTimeout, m, abi.OpList, func(ctx context.Context) (*abi.ListResult, error) {
		return m.p.List(ctx, cursor)
	})
	if err != nil {
		return nil, "", err
	}
	if res == nil || len(res.Resources) > abi.MaxListItems || len(res.NextCursor) > abi.MaxCursorLength {
		return nil, "", fmt.Errorf("%w: list page out of bounds", abi.ErrViolation)
	}
	out := make([]abi.Resource, 0, len(res.Resources))
	for _, r := range res.Resources {
		if m.space.OwnsString(r.URI) {
			out = append(out, r)
		}
	}
	if dropped := len(res.Resources) - len(out); dropped > 0 {
		m.log.Warn("resources outside the provider's uri space left out", "op", abi.OpList, "count", dropped)
	}
	return out, res.NextCursor, nil
}

// fetchTemplates calls one provider's templates under its own deadline and
// keeps the templates that parse and stay inside its uri space.
func (s *Server) fetchTemplates(ctx context.Context, m *backend, cursor string) ([]abi.ResourceTemplate, string, error) {
	res, err := callProvider(ctx, s.cfg.callTimeout, m, abi.OpTemplates, func(ctx context.Context) (*abi.TemplatesResult, error) {
		return m.p.Templates(ctx, cursor)
	})
	if err != nil {
		return nil, "", err
	}
	if res == nil || len(res.ResourceTemplates) > abi.MaxListItems || len(res.NextCursor) > abi.MaxCursorLength {
		return nil, "", fmt.Errorf("%w: templates page out of bounds", abi.ErrViolation)
	}
	out := make([]abi.ResourceTemplate, 0, len(res.ResourceTemplates))
	for _, t := range res.ResourceTemplates {
		if err := abi.CheckTemplate(t.URITemplate, m.space); err != nil {
			m.log.Warn("template left out", "op", abi.OpTemplates, "template", clip(t.URITemplate), "reason", err)
			continue
		}
		out = append(out, t)
	}
	return out, res.NextCursor, nil
}
