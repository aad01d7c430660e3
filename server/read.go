package server

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
	r, err := s.read(ctx, rev, req.Params.URI)
	if err != nil {
		return nil, err
	}
	return readReply(rev, &r), nil
}

// readReply is the resources/read result of r for revision rev.
//
//go:noinline
func readReply(rev revision, r *aRead) *readResult {
	out := make([]content, len(r.contents))
	for i, c := range r.contents {
		out[i] = contentFor(c, rev)
	}
	return &readResult{stateless: newStateless(rev, r.cache), Contents: out}
}

// aRead is what a read served: the contents a client may see, their cache
// hint and the provider that read them.
type aRead struct {
	contents []abi.Content
	cache    abi.CacheHint
	provider string
}

// read reads the resource raw names for a client of revision rev, the one
// path of resources/read and of the read_resource tool: it validates the
// URI, routes it to the one provider whose uri space owns it, applies the
// operator's filter, checks the contents, and maps every failure to the
// error the revision gives it.
//
// The frames on the stack while the provider runs (this one, readResource,
// the middleware) stay small: the steps before and after the call are in
// route and served, which are not inlined. A wasm provider's call needs
// several KiB of stack below them (runtime.Provider.guarded says why).
func (s *Server) read(ctx context.Context, rev revision, raw string) (aRead, *jsonrpc.Error) {
	set, m, uri, jerr := s.route(ctx, rev, raw)
	if jerr != nil {
		return aRead{}, jerr
	}
	defer set.release()
	res, err := callProvider(ctx, s.cfg.callTimeout, m, abi.OpRead, func(ctx context.Context) (*abi.ReadResult, error) {
		return m.p.Read(ctx, uri)
	})
	return s.served(ctx, rev, raw, m, res, err)
}

// route checks the URI raw and finds the provider that may read it, in
// the provider set it returns acquired (the caller releases it).
//
//go:noinline
func (s *Server) route(ctx context.Context, rev revision, raw string) (*providerSet, *backend, string, *jsonrpc.Error) {
	uri, u, err := checkURI(raw)
	if err != nil {
		s.log.Debug("read refused", "reason", err)
		return nil, nil, "", invalidParams("%v", err)
	}
	set := s.acquireFor(ctx)
	m := set.owner(u)
	if !m.serves(uri) {
		set.release()
		return nil, nil, "", notFound(rev, raw)
	}
	return set, m, uri, nil
}

// served maps the outcome of m's read of raw: the error the revision gives
// a failure, or the contents the client may see.
//
//go:noinline
func (s *Server) served(ctx context.Context, rev revision, raw string, m *backend, res *abi.ReadResult, err error) (aRead, *jsonrpc.Error) {
	if err != nil {
		switch m.classify(ctx, abi.OpRead, err) {
		case failNotFound:
			return aRead{}, notFound(rev, raw)
		case failInvalid:
			return aRead{}, invalidParams("the provider rejected the uri")
		default:
			return aRead{}, internalError()
		}
	}
	if err := checkContents(res, m.space); err != nil {
		m.log.Warn("provider read result refused", "op", abi.OpRead, "error", err)
		return aRead{}, internalError()
	}
	contents := slices.DeleteFunc(slices.Clone(res.Contents), func(c abi.Content) bool { return !m.allows(c.URI) })
	if len(contents) == 0 {
		// Every content is hidden: the read of a visible URI (a
		// directory, say) may return contents of hidden ones.
		return aRead{}, notFound(rev, raw)
	}
	return aRead{contents: contents, cache: m.privately(s.readCache(m, res)), provider: m.name}, nil
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

// serves reports whether m (nil: no provider) reads uri for clients: it
// implements read, and its filter lets uri through.
func (m *backend) serves(uri string) bool {
	return m != nil && m.has(abi.OpRead) && m.allows(uri)
}

// reads returns the provider a read of raw would reach, or nil when the
// read would be refused: raw fails checkURI, no provider owns it, or its
// owner does not serve it. It is the check of route, for completion
// values (complete.go).
func (ps *providerSet) reads(raw string) *backend {
	uri, u, err := checkURI(raw)
	if err != nil {
		return nil
	}
	if m := ps.owner(u); m.serves(uri) {
		return m
	}
	return nil
}

// checkContents refuses an empty result (it must be not_found instead),
// contents outside the provider's space, and contents with both or neither
// of text and blob.
func checkContents(res *abi.ReadResult, space abi.URISpace) error {
	if res == nil || len(res.Contents) == 0 || len(res.Contents) > abi.MaxListItems {
		return fmt.Errorf("%w: no contents, or too many", errBadContents)
	}
	for i, c := range res.Contents {
		if (c.Text == nil) == (c.Blob == nil) {
			return fmt.Errorf("%w: content %d has not exactly one of text and blob", errBadContents, i)
		}
		if !space.OwnsString(c.URI) {
			return fmt.Errorf("%w: content %d: %w", errBadContents, i, abi.ErrForeignURI)
		}
	}
	return nil
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
