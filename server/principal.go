package server

import (
	"context"
	"net/netip"
	"strconv"

	"github.com/mcp-wasm/mcp-wasm/server/auth"
)

// A principal is named by what vouches for it and its subject together:
// a static token's subject "ci" and a JWT whose sub is "ci" are two
// clients, and so are equal subjects from two issuers, or a JWT's sub and
// another JWT's client_id. principalKey is that name, and every place that
// keys something by client (legacy session ownership, the rate limit, the
// session bounds, audit lines) uses it, never a bare subject.

// principalCtxKey carries the authenticated *principal of an HTTP request.
type principalCtxKey struct{}

// principalKey names the client of the request whose context is ctx:
//
//	static:<subject>                      a static token
//	oauth:<n>:<issuer>:sub:<subject>      a JWT's sub (n = len(issuer))
//	oauth:<n>:<issuer>:client_id:<id>     a JWT without sub, by client_id
//	address:<ip or IPv6 /64>              an anonymous HTTP client
//	stdio                                 no HTTP client (stdio, in-process)
//
// The encoding is unambiguous: the kind ends at the first colon, the
// issuer is length-prefixed, and the subject is the rest. ctx is an HTTP
// request's context once admit has run, or a go-sdk handler's context
// (which carries the values of the request that opened its session; that
// session is bound to the same principal).
func principalKey(ctx context.Context) string {
	if p, ok := ctx.Value(principalCtxKey{}).(*principal); ok {
		return p.key
	}
	if s, ok := ctx.Value(clientAddrKey{}).(string); ok {
		if a, err := netip.ParseAddr(s); err == nil {
			return addressKey(a)
		}
		return "address:" + s
	}
	return "stdio"
}

// keyOf is the principalKey of an authenticated principal.
func keyOf(p *auth.Principal) string {
	if p.Kind == auth.KindStatic {
		return "static:" + p.Subject
	}
	return "oauth:" + strconv.Itoa(len(p.Issuer)) + ":" + p.Issuer + ":" + p.Kind + ":" + p.Subject
}

// addressKey is the principalKey of an anonymous client at a: its address,
// or its /64 for IPv6 (which a single host usually owns whole).
func addressKey(a netip.Addr) string { return "address:" + rateKey(a).String() }
