package server

import (
	"context"
	"errors"
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
)

// lister describes one merged list (resources or templates).
type lister[T any] struct {
	op       string     // abi.OpList or abi.OpTemplates
	backends []*backend // the providers of this request, sorted by name
	// fetch calls the provider for one page under its own deadline and
	// returns the items a client may see.
	fetch func(ctx context.Context, m *backend, cursor string) ([]T, string, error)
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
func (l lister[T]) page(ctx context.Context, s *Server, pos position) ([]T, *position) {
	out := make([]T, 0, min(s.cfg.pageSize, 64))
	progress := false
	for calls := 0; pos.Index < len(l.backends) && len(out) < s.cfg.pageSize; calls++ {
		if calls == maxCallsPerPage || ctx.Err() != nil {
			return out, &pos
		}
		m := l.backends[pos.Index]
		if !m.has(l.op) {
			pos, progress = l.nextProvider(pos), true
			continue
		}
		items, next, err := l.fetch(ctx, m, string(pos.Cursor))
		switch {
		case err != nil && ctx.Err() != nil && (progress || !errors.Is(ctx.Err(), context.DeadlineExceeded)):
			return out, &pos // out of time (or the client left): the next page asks again
		case err != nil && ctx.Err() != nil:
			m.log.Warn("provider left out of the list: it did not answer within the request deadline", "op", l.op)
			next := l.nextProvider(pos)
			return out, &next
		case err != nil:
			m.log.Warn("provider left out of the list", "op", l.op, "error", clip(err.Error()))
			pos, progress = l.nextProvider(pos), true
			continue
		}
		var full bool
		out, pos, full = l.take(s, m, out, items, next, pos)
		if full {
			return out, &pos
		}
		progress = true
	}
	if pos.Index >= len(l.backends) {
		return out, nil
	}
	return out, &pos
}

// take appends the items of one provider page from pos.Offset, up to the
// page size, and advances pos. full reports that the page filled up inside
// this provider page (pos then points into it).
func (l lister[T]) take(s *Server, m *backend, out, items []T, next string, pos position) ([]T, position, bool) {
	if pos.Offset > len(items) {
		pos.Offset = len(items) // the provider page shrank since the cursor was made
	}
	rest := items[pos.Offset:]
	if need := s.cfg.pageSize - len(out); len(rest) > need {
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
	p := position{Kind: pos.Kind, Index: i}
	if i < len(l.backends) {
		p.Name = l.backends[i].name
	}
	return p
}

// firstPosition is the start of a listing of kind over backends.
func firstPosition(backends []*backend, kind string) position {
	p := position{Kind: kind}
	if len(backends) > 0 {
		p.Name = backends[0].name
	}
	return p
}
