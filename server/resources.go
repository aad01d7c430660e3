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
	items, st, next, err := listPage(ctx, s, revisionOf(req, meta), cursor, listQuery{kind: kindResources}, s.cfg.pageSize,
		abi.OpList, s.fetchResources, resourceFor)
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
	items, st, next, err := listPage(ctx, s, revisionOf(req, meta), cursor, listQuery{kind: kindTemplates}, s.cfg.pageSize,
		abi.OpTemplates, s.fetchTemplates, templateFor)
	if err != nil {
		return nil, err
	}
	return &listTemplatesResult{stateless: st, ResourceTemplates: items, NextCursor: next}, nil
}

// listPage serves one client page of a merged list on the provider set of
// this request: it decodes the cursor, collects the page, shapes every item
// for the revision and returns the page's cache fields and next cursor.
//
// The page's ttlMs is what its providers' pages said (list.go, freshness);
// its cacheScope is the list's, the same on every page.
func listPage[T any](ctx context.Context, s *Server, rev revision, cursor string, q listQuery, size int, op string,
	fetch func(context.Context, *backend, string) (fetched[T], error), shape func(T, revision) T,
) ([]T, stateless, string, error) {
	set := s.acquireFor(ctx)
	defer set.release()
	q.who = set.who
	if q.provider != "" && set.named(q.provider) == nil {
		return nil, stateless{}, "", invalidParams("no provider is named %q", clip(q.provider))
	}
	backends := q.narrow(set.backends)
	pos, err := s.startPosition(backends, q, cursor)
	if err != nil {
		return nil, stateless{}, "", err
	}
	l := lister[T]{op: op, backends: backends, scope: set.listCache.Scope, size: size, fetch: fetch}
	items, next, ttl := l.page(ctx, s, pos)
	out := make([]T, len(items))
	for i, item := range items {
		out[i] = shape(item, rev)
	}
	return out, newStateless(rev, abi.CacheHint{TTLMs: ttl, Scope: set.listCache.Scope}), s.nextCursor(next), nil
}

// startPosition decodes a client cursor ("" starts the listing) against
// the providers of this request.
func (s *Server) startPosition(backends []*backend, q listQuery, cursor string) (position, error) {
	if cursor == "" {
		return firstPosition(backends, q), nil
	}
	pos, err := s.cursors.decode(cursor)
	if err == nil {
		err = pos.valid(q, backends)
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
func (s *Server) fetchResources(ctx context.Context, m *backend, cursor string) (fetched[abi.Resource], error) {
	res, err := callProvider(ctx, s.cfg.callTimeout, m, abi.OpList, func(ctx context.Context) (*abi.ListResult, error) {
		return cachedPage(ctx, s.lists, m, abi.OpList, cursor, m.p.List, listHint, listSize(m, cursor))
	})
	if err != nil {
		return fetched[abi.Resource]{}, err
	}
	if res == nil || len(res.Resources) > abi.MaxListItems || len(res.NextCursor) > abi.MaxCursorLength {
		return fetched[abi.Resource]{}, fmt.Errorf("%w: list page out of bounds", abi.ErrViolation)
	}
	out := make([]abi.Resource, 0, len(res.Resources))
	foreign := 0
	for _, r := range res.Resources {
		switch {
		case !m.space.OwnsString(r.URI):
			foreign++
		case m.allows(r.URI):
			out = append(out, r)
		}
	}
	if foreign > 0 {
		m.log.Warn("resources outside the provider's uri space left out", "op", abi.OpList, "count", foreign)
	}
	return fetched[abi.Resource]{items: out, next: res.NextCursor, cache: res.Cache}, nil
}

// fetchTemplates calls one provider's templates under its own deadline and
// keeps the templates that parse and stay inside its uri space.
func (s *Server) fetchTemplates(ctx context.Context, m *backend, cursor string) (fetched[abi.ResourceTemplate], error) {
	res, err := callProvider(ctx, s.cfg.callTimeout, m, abi.OpTemplates, func(ctx context.Context) (*abi.TemplatesResult, error) {
		return cachedPage(ctx, s.lists, m, abi.OpTemplates, cursor, m.p.Templates, templatesHint, templatesSize(m, cursor))
	})
	if err != nil {
		return fetched[abi.ResourceTemplate]{}, err
	}
	if res == nil || len(res.ResourceTemplates) > abi.MaxListItems || len(res.NextCursor) > abi.MaxCursorLength {
		return fetched[abi.ResourceTemplate]{}, fmt.Errorf("%w: templates page out of bounds", abi.ErrViolation)
	}
	out := make([]abi.ResourceTemplate, 0, len(res.ResourceTemplates))
	for _, t := range res.ResourceTemplates {
		if err := abi.CheckTemplate(t.URITemplate, m.space); err != nil {
			m.log.Warn("template left out", "op", abi.OpTemplates, "template", clip(t.URITemplate), "reason", err)
			continue
		}
		if m.allowsTemplate(t.URITemplate) {
			out = append(out, t)
		}
	}
	return fetched[abi.ResourceTemplate]{items: out, next: res.NextCursor, cache: res.Cache}, nil
}
