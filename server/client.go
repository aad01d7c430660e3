package server

import (
	"context"
	"net/netip"
)

// Who a request comes from, for the per-client shares of the server's
// pools (sessions, subscriptions, listens) and the rate limit.
//
// A client is the authenticated principal when the HTTP transport checks
// tokens, and otherwise its address (its /64 for IPv6; behind a trusted
// proxy, the address the proxy names): an anonymous client has nothing
// else the server can trust to tell it apart, an address costs an attacker
// far more than a new session or token-less request does, and the clients
// behind one NAT share one share, which is why the shares are a fraction
// of each total rather than all of it. stdio and in-process transports
// carry no client: they serve one client, whom only the totals bound. Nor
// does ServeStreamable on a loopback address without tokens or trusted
// proxies (HTTPConfig.forBind): every local client has the same address
// there, so a per-address share would only ration the user's own tools.

// clientKeyKey carries the client key of an HTTP request (clientKeyFor)
// on its context, to the go-sdk handlers of its session.
type clientKeyKey struct{}

// clientKeyFor names the client of an HTTP request: its principal p when
// authenticated (its principalKey: kind, issuer and subject), else its
// address. It is the one place that decides what
// makes two requests the same client.
func clientKeyFor(p *principal, addr netip.Addr) string {
	if p != nil {
		return p.key
	}
	return addressKey(addr)
}

// clientOf returns the client key ctx carries, "" for none (stdio,
// in-process transports).
func clientOf(ctx context.Context) string {
	k, _ := ctx.Value(clientKeyKey{}).(string)
	return k
}
