package server

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// Loop protection for merged lists. A provider that hits one of these
// bounds is left out of the rest of the listing, with a log line.
const (
	// maxCallsPerPage bounds the provider calls made for one client page.
	maxCallsPerPage = 64
	// maxEmptyPages bounds consecutive empty provider pages that still
	// carry a nextCursor.
	maxEmptyPages = 32
	// maxProviderPages bounds the pages one provider may contribute to one
	// listing (at most abi.MaxListItems items each).
	maxProviderPages = 100_000
	// maxTTLMs is the longest cache hint, one year, as abi validates it.
	maxTTLMs = 365 * 24 * 3600 * 1000
)

// listQuery is what one listing lists: its kind and, in the resource
// tools view, the provider and URI prefix it is narrowed to. A narrowed
// listing's cursors carry the digest of its query, so that they cannot
// resume another listing (their offsets count only the items it keeps).
type listQuery struct {
	kind     string // kindResources or kindTemplates
	provider string // "": every provider
	prefix   string // "": every URI
	who      []byte // the client's view digest (aclview.go), nil with no access rules
}

// queryDigestSize is the size of a query digest in a cursor.
const queryDigestSize = 16

// digest identifies a narrowed query; nil for a whole list.
func (q listQuery) digest() []byte {
	if q.provider == "" && q.prefix == "" {
		return nil
	}
	h := sha256.Sum256([]byte(q.kind + "\x00" + q.provider + "\x00" + q.prefix))
	return h[:queryDigestSize]
}

// narrow returns the providers the query lists, in name order: the one it
// names, and of those the ones whose uri space may hold its prefix.
func (q listQuery) narrow(backends []*backend) []*backend {
	if q.provider == "" && q.prefix == "" {
		return backends
	}
	var out []*backend
	for _, m := range backends {
		if (q.provider == "" || m.name == q.provider) && mayHold(m.space, q.prefix) {
			out = append(out, m)
		}
	}
	return out
}

// mayHold reports whether some URI of space may start with prefix, judging
// by the scheme alone.
func mayHold(space abi.URISpace, prefix string) bool {
	scheme, _, complete := strings.Cut(strings.ToLower(prefix), ":")
	for _, r := range space {
		if complete && r.Scheme == scheme || !complete && strings.HasPrefix(r.Scheme, scheme) {
			return true
		}
	}
	return false
}

// hasURIPrefix reports whether uri starts with prefix, the scheme compared
// without case.
func hasURIPrefix(uri, prefix string) bool {
	if len(uri) < len(prefix) {
		return false
	}
	scheme, rest, ok := strings.Cut(prefix, ":")
	if !ok {
		return strings.EqualFold(uri[:len(prefix)], prefix)
	}
	return strings.EqualFold(uri[:len(scheme)+1], scheme+":") && strings.HasPrefix(uri[len(scheme)+1:], rest)
}

// lister describes one merged list (resources or templates).
type lister[T any] struct {
	op       string     // abi.OpList or abi.OpTemplates
	backends []*backend // the providers of this listing, sorted by name
	scope    string     // the cache scope of every page of the list (listCacheHint)
	size     int        // items per client page
	// fetch calls the provider for one page under its own deadline and
	// returns the items a client may see.
	fetch func(ctx context.Context, m *backend, cursor string) (fetched[T], error)
}

// fetched is one provider page: the items a client may see, the
// provider's next cursor, and the page's own cache hint (nil if none).
type fetched[T any] struct {
	items []T
	next  string
	cache *abi.CacheHint
}

// freshness folds the cache hints of the provider pages that make up one
// client page into the page's ttlMs: the shortest of them, 0 once any
// provider failed (a page missing a provider must not be reused) or when
// no provider page was used at all.
type freshness struct {
	ttl   int64 // -1 before the first provider page
	stale bool
}

// add accounts for one provider page of m with its own hint h (nil: the
// provider's describe hint, else not cacheable). A hint whose scope is
// narrower than the list's cannot be honoured (every page of a list has
// one scope): that page is not cacheable.
func (f *freshness) add(m *backend, h *abi.CacheHint, scope string) {
	if h == nil {
		h = m.cache
	}
	ttl := int64(0)
	if h != nil && !(h.Scope == abi.ScopePrivate && scope != abi.ScopePrivate) {
		ttl = min(max(h.TTLMs, 0), maxTTLMs)
	}
	if f.ttl < 0 || ttl < f.ttl {
		f.ttl = ttl
	}
}

// ttlMs is the ttl of the page.
func (f freshness) ttlMs() int64 {
	if f.stale || f.ttl < 0 {
		return 0
	}
	return f.ttl
}

// page collects one client page starting at pos. It returns the items and
// the position of the next page, or nil at the end of the listing. Provider
// failures never fail the page: the provider is skipped and logged.
//
// ctx carries the request's deadline, shared by every provider call of the
// page (each call also has its own, the shorter one wins). When it passes,
// the page ends with what it has and a position that repeats the call it
// cut; only a call that had the whole page to itself and still did not
// finish makes its provider skipped, so that every page moves on.
//
// The page also has a time budget (Config.WithPageTime): once it is spent,
// no further provider call starts and the page returns what it has, with
// the position after the last provider page it used. Every iteration moves
// the position on (a provider page taken, or a provider skipped), so a
// page cut by its budget still makes progress.
//
// It also returns the page's ttlMs (freshness): how long a client may
// reuse it, as the providers whose pages it holds said.
func (l lister[T]) page(ctx context.Context, s *Server, pos position) ([]T, *position, int64) {
	out := make([]T, 0, min(l.size, 64))
	fresh := freshness{ttl: -1}
	progress := false
	start := time.Now()
	for calls := 0; pos.Index < len(l.backends) && len(out) < l.size; calls++ {
		if calls == maxCallsPerPage || ctx.Err() != nil || calls > 0 && time.Since(start) >= s.cfg.pageTime {
			fresh.stale = fresh.stale || ctx.Err() != nil
			return out, &pos, fresh.ttlMs()
		}
		m := l.backends[pos.Index]
		if !m.has(l.op) {
			pos, progress = l.nextProvider(pos), true
			continue
		}
		f, err := l.fetch(ctx, m, string(pos.Cursor))
		if err != nil {
			fresh.stale = true
		}
		switch {
		case err != nil && ctx.Err() != nil && (progress || !errors.Is(ctx.Err(), context.DeadlineExceeded)):
			return out, &pos, 0 // out of time (or the client left): the next page asks again
		case err != nil && ctx.Err() != nil:
			m.log.Warn("provider left out of the list: it did not answer within the request deadline", "op", l.op)
			next := l.nextProvider(pos)
			return out, &next, 0
		case err != nil:
			m.log.Warn("provider left out of the list", "op", l.op, "error", clip(err.Error()))
			pos, progress = l.nextProvider(pos), true
			continue
		}
		fresh.add(m, f.cache, l.scope)
		var full bool
		out, pos, full = l.take(m, out, f.items, f.next, pos)
		if full {
			return out, &pos, fresh.ttlMs()
		}
		progress = true
	}
	if pos.Index >= len(l.backends) {
		return out, nil, fresh.ttlMs()
	}
	return out, &pos, fresh.ttlMs()
}

// take appends the items of one provider page from pos.Offset, up to the
// page size, and advances pos. full reports that the page filled up inside
// this provider page (pos then points into it).
func (l lister[T]) take(m *backend, out, items []T, next string, pos position) ([]T, position, bool) {
	if pos.Offset > len(items) {
		pos.Offset = len(items) // the provider page shrank since the cursor was made
	}
	rest := items[pos.Offset:]
	if need := l.size - len(out); len(rest) > need {
		pos.Offset += need
		return append(out, rest[:need]...), pos, true
	}
	out = append(out, rest...)
	switch {
	case next == "":
		return out, l.nextProvider(pos), false
	case pos.repeats(next):
		m.log.Warn("provider returned a cursor it had returned before in this listing (a cycle); skipping the rest of its list", "op", l.op)
		return out, l.nextProvider(pos), false
	case len(items) == 0 && pos.Empty+1 >= maxEmptyPages:
		m.log.Warn("provider returned empty pages with a next cursor; skipping the rest of its list", "op", l.op)
		return out, l.nextProvider(pos), false
	case pos.Pages+1 >= maxProviderPages:
		m.log.Warn("provider listed too many pages; skipping the rest of its list", "op", l.op)
		return out, l.nextProvider(pos), false
	}
	if len(items) == 0 {
		pos.Empty++
	} else {
		pos.Empty = 0
	}
	return out, pos.advance(next), false
}

// nextProvider returns the start of the provider after pos.
func (l lister[T]) nextProvider(pos position) position {
	i := pos.Index + 1
	p := position{Kind: pos.Kind, Query: pos.Query, Who: pos.Who, Index: i}
	if i < len(l.backends) {
		p.Name = l.backends[i].name
	}
	return p
}

// firstPosition is the start of the listing q over backends.
func firstPosition(backends []*backend, q listQuery) position {
	p := position{Kind: q.kind, Query: q.digest(), Who: q.who}
	if len(backends) > 0 {
		p.Name = backends[0].name
	}
	return p
}
