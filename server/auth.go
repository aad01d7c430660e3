package server

import (
	"context"
	"net/http"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/mcp-wasm/mcp-wasm/server/auth"
)

// Authentication is package auth's; this file is how the HTTP handler uses
// it: who a request comes from (principal) travels in the request's
// context to the audit, the session bounds and go-sdk's session binding.

// principal is an authenticated client, as the HTTP handler keeps it.
type principal struct {
	key    string // principalKey: kind, issuer and subject (principal.go)
	scopes []string
	expiry time.Time // zero for static tokens
	who    Who       // what access rules match (acl.go)
}

// authError is a refused authentication: the status and RFC 6750 code the
// audit records, and the refusal to answer with.
type authError struct {
	status  int
	code    string
	cause   error // logged, never sent
	refusal *auth.Refusal
}

// authenticator checks the bearer token of each request.
type authenticator struct{ a *auth.Authenticator }

func newAuthenticator(c auth.Config) *authenticator { return &authenticator{auth.New(c)} }

// authenticate returns the client of r, or why it is refused.
func (a *authenticator) authenticate(r *http.Request) (*principal, *authError) {
	p, refusal := a.a.Authenticate(r)
	if refusal != nil {
		return nil, &authError{status: refusal.Status, code: refusal.Code, cause: refusal.Cause, refusal: refusal}
	}
	return &principal{key: keyOf(p), scopes: p.Scopes, expiry: p.Expiry, who: whoOfPrincipal(p)}, nil
}

// challenge writes the refusal with its WWW-Authenticate header.
func (a *authenticator) challenge(w http.ResponseWriter, e *authError) { a.a.Challenge(w, e.refusal) }

// authRoutes serves the RFC 9728 metadata (OAuth only), behind the rate
// limit but not authenticated: clients read it to learn how to get a token.
func (h *httpHandler) authRoutes() {
	if h.auth == nil {
		return
	}
	meta, paths := h.auth.a.Metadata()
	for _, p := range paths {
		h.mux.Handle(p, h.limited(meta))
	}
}

// withTokenInfo hands the principal that authenticate established to
// go-sdk as its auth.TokenInfo, with the principalKey as UserID: go-sdk
// then binds each legacy session to its principal (another principal, even
// one with the same subject, gets 403 on it) and passes the TokenInfo to
// handlers. auth.RequireBearerToken is the only way to set it; its
// verifier here only looks up what was already verified.
func withTokenInfo(next http.Handler) http.Handler {
	verified := func(ctx context.Context, _ string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		p, _ := ctx.Value(principalCtxKey{}).(*principal)
		if p == nil {
			return nil, sdkauth.ErrInvalidToken
		}
		return &sdkauth.TokenInfo{UserID: p.key, Scopes: p.scopes, Expiration: p.expiry}, nil
	}
	return sdkauth.RequireBearerToken(verified, &sdkauth.RequireBearerTokenOptions{AllowMissingExpiration: true, ClockSkew: auth.Leeway})(next)
}
