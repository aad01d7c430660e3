package server

import (
	"context"
	"crypto/sha256"
	"fmt"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// A request sees the providers through its client's view of the current
// provider set (acquireFor): the providers no rule grants the client are
// not in it at all, and every other one lets through only what the rules
// for the client let through. Every path that reveals or returns a
// resource (list, templates, read, completion, subscribe, listen, the
// tools view) routes through the view exactly as it routes through the
// set, so a hidden resource takes the path of an absent one: the same
// error, and no provider call.

// whoDigestSize is the size of the view digest bound into list cursors.
const whoDigestSize = 16

// whoFrom is the client of the request whose context is ctx, as access
// rules see it: its authenticated principal, else an anonymous HTTP
// client, else the local user (stdio, in-process).
func whoFrom(ctx context.Context) Who {
	if p, ok := ctx.Value(principalCtxKey{}).(*principal); ok {
		return p.who
	}
	if _, ok := ctx.Value(clientAddrKey{}).(string); ok {
		return Who{Kind: WhoAnonymous}
	}
	return Who{Kind: WhoStdio}
}

// acquireFor returns the current set as the client of ctx sees it,
// counted as in use until its release.
func (s *Server) acquireFor(ctx context.Context) *providerSet {
	return s.acquire().view(ctx)
}

// view returns ps as the client of ctx sees it: ps itself when access
// control is off.
func (ps *providerSet) view(ctx context.Context) *providerSet {
	if !ps.rules.On() {
		return ps
	}
	return ps.viewFor(whoFrom(ctx), principalKey(ctx))
}

// viewFor returns the view of ps of the client w whose principalKey is
// key; access control must be on.
func (ps *providerSet) viewFor(w Who, key string) *providerSet {
	v := &providerSet{rules: ps.rules, parent: ps, listCache: abi.CacheHint{Scope: abi.ScopePrivate}}
	for _, m := range ps.backends {
		g := ps.rules.grants(w, m.name)
		if len(g) == 0 {
			continue
		}
		c := *m
		c.grants, c.restricted, c.origin = g, true, m.shared()
		v.backends = append(v.backends, &c)
	}
	v.who = viewDigest(key, ps.rules, ps.rules.matching(w))
	return v
}

// viewDigest names a view in list cursors: the principal and the rules
// that shape what it sees (each rule's place, providers and patterns). A
// cursor made in one view is refused in any other, so it is useless to
// another principal, and to the same one once a reload changed its rules.
func viewDigest(key string, rs Rules, matching []int) []byte {
	h := sha256.New()
	h.Write([]byte(key))
	for _, i := range matching {
		r := rs.rules[i]
		fmt.Fprintf(h, "\x00%d\x00%q\x00%q", i, r.providers, r.filter.String())
	}
	return h.Sum(nil)[:whoDigestSize]
}

// allows reports whether a client of m's view may see uri: the operator's
// URIFilter lets it through, and, when access control is on, some rule
// for the client does too.
func (m *backend) allows(uri string) bool {
	if !m.filter.Allows(uri) {
		return false
	}
	if !m.restricted {
		return true
	}
	for _, g := range m.grants {
		if g.Allows(uri) {
			return true
		}
	}
	return false
}

// allowsTemplate is allows for a template, judged by its literal prefix
// (URIFilter.allowsTemplate).
func (m *backend) allowsTemplate(tmpl string) bool {
	if !m.filter.allowsTemplate(tmpl) {
		return false
	}
	if !m.restricted {
		return true
	}
	for _, g := range m.grants {
		if g.allowsTemplate(tmpl) {
			return true
		}
	}
	return false
}

// privately returns h with the private scope when m is seen through a
// view: what a client sees then depends on who it is, and no shared cache
// may hand it to another.
func (m *backend) privately(h abi.CacheHint) abi.CacheHint {
	if m.restricted {
		h.Scope = abi.ScopePrivate
	}
	return h
}
