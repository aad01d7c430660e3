package server

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// errBadContents marks a read result the server refuses to forward.
var errBadContents = errors.New("read result refused")

// readResource serves resources/read: validate the URI, route it to the one
// provider whose uri space owns it, and map the outcome for the revision.
func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (mcp.Result, error) {
	if req.Params == nil {
		return nil, invalidParams("missing params")
	}
	rev := revisionOf(req, req.Params.Meta)
	raw := req.Params.URI
	uri, u, err := checkURI(raw)
	if err != nil {
		s.log.Debug("read refused", "reason", err)
		return nil, invalidParams("%v", err)
	}
	set := s.acquire()
	defer set.release()
	m := set.owner(u)
	if m == nil || !m.has(abi.OpRead) {
		return nil, notFound(rev, raw)
	}
	res, err := callProvider(ctx, s.cfg.callTimeout, m, abi.OpRead, func(ctx context.Context) (*abi.ReadResult, error) {
		return m.p.Read(ctx, uri)
	})
	if err != nil {
		switch m.classify(ctx, abi.OpRead, err) {
		case failNotFound:
			return nil, notFound(rev, raw)
		case failInvalid:
			return nil, invalidParams("the provider rejected the uri")
		default:
			return nil, internalError()
		}
	}
	out, err := toContents(res, m.space)
	if err != nil {
		m.log.Warn("provider read result refused", "op", abi.OpRead, "error", err)
		return nil, internalError()
	}
	return &readResult{stateless: newStateless(rev, s.readCache(m, res)), Contents: out}, nil
}

// owner returns the provider whose uri space owns u, or nil. New and
// SetProviders refuse overlapping spaces, so there is at most one.
func (ps *providerSet) owner(u *url.URL) *backend {
	for _, m := range ps.backends {
		if m.space.Owns(u) {
			return m
		}
	}
	return nil
}

// toContents converts provider contents to wire contents, refusing an empty
// result (it must be not_found instead), contents outside the provider's
// space, and contents with both or neither of text and blob.
func toContents(res *abi.ReadResult, space abi.URISpace) ([]content, error) {
	if res == nil || len(res.Contents) == 0 || len(res.Contents) > abi.MaxListItems {
		return nil, fmt.Errorf("%w: no contents, or too many", errBadContents)
	}
	out := make([]content, len(res.Contents))
	for i, c := range res.Contents {
		if (c.Text == nil) == (c.Blob == nil) {
			return nil, fmt.Errorf("%w: content %d has not exactly one of text and blob", errBadContents, i)
		}
		if !space.OwnsString(c.URI) {
			return nil, fmt.Errorf("%w: content %d: %w", errBadContents, i, abi.ErrForeignURI)
		}
		out[i] = content{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob}
	}
	return out, nil
}

// readCache is the cache hint of a read: the result's, else the provider's
// describe hint, else not cacheable (ttl 0, public).
func (s *Server) readCache(m *backend, res *abi.ReadResult) abi.CacheHint {
	switch {
	case res.Cache != nil:
		return *res.Cache
	case m.cache != nil:
		return *m.cache
	}
	return abi.CacheHint{Scope: abi.ScopePublic}
}
