package auth

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Leeway is the clock skew tolerated on a JWT's exp, nbf and iat; a caller
// that checks the expiry again should tolerate the same.
const Leeway = 30 * time.Second

// jwtAlgs are the signature algorithms accepted: "none" and HMAC never.
var jwtAlgs = []string{"RS256", "ES256"}

// accessClaims are the claims of an OAuth access token (RFC 9068) we read.
type accessClaims struct {
	jwt.RegisteredClaims
	Scope    string `json:"scope"`
	Scp      any    `json:"scp"` // a list or a string, by issuer
	ClientID string `json:"client_id"`
}

// scopes returns the token's scopes from scope (space-separated) or scp.
func (c *accessClaims) scopes() []string {
	out := strings.Fields(c.Scope)
	switch v := c.Scp.(type) {
	case string:
		out = append(out, strings.Fields(v)...)
	case []any:
		for _, s := range v {
			if s, ok := s.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// jwtVerifier validates access tokens against one issuer's keys.
type jwtVerifier struct {
	keys   *jwks
	parser *jwt.Parser
}

func newJWTVerifier(o OAuthConfig) *jwtVerifier {
	aud := o.Audience
	if aud == "" {
		aud = o.Resource
	}
	return &jwtVerifier{
		keys: newJWKS(o.Issuer, o.JWKSURL, o.HTTPClient),
		parser: jwt.NewParser(jwt.WithValidMethods(jwtAlgs), jwt.WithIssuer(o.Issuer), jwt.WithAudience(aud),
			jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithLeeway(Leeway)),
	}
}

// verify checks the signature, issuer, audience and lifetime of token and
// returns its principal. The refusal says which check failed, never more.
func (v *jwtVerifier) verify(ctx context.Context, token string) (*Principal, *Refusal) {
	var claims accessClaims
	_, err := v.parser.ParseWithClaims(token, &claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		return v.keys.key(ctx, kid, t.Method.Alg())
	})
	if err != nil {
		return nil, jwtRefusal(err)
	}
	kind, sub := KindSubject, claims.Subject
	if sub == "" {
		kind, sub = KindClientID, claims.ClientID
	}
	if sub == "" {
		return nil, unauthorized("invalid_token", "token has no subject")
	}
	p := &Principal{Kind: kind, Issuer: claims.Issuer, Subject: sub, Scopes: claims.scopes(), Claims: stringClaims(token)}
	if claims.ExpiresAt != nil {
		p.Expiry = claims.ExpiresAt.Time
	}
	return p, nil
}

// jwtRefusal maps a validation error to what the client is told.
func jwtRefusal(err error) *Refusal {
	checks := []struct {
		err  error
		desc string
	}{
		{errKeysUnavailable, ""},
		{jwt.ErrTokenMalformed, "token malformed"},
		{jwt.ErrTokenExpired, "token expired"},
		{jwt.ErrTokenNotValidYet, "token not valid yet"},
		{jwt.ErrTokenUsedBeforeIssued, "token issued in the future"},
		{jwt.ErrTokenRequiredClaimMissing, "token lacks a required claim (exp, iss or aud)"},
		{jwt.ErrTokenInvalidAudience, "token audience is not this server"},
		{jwt.ErrTokenInvalidIssuer, "token issuer is not trusted"},
		{jwt.ErrTokenSignatureInvalid, "token signature invalid"},
		{jwt.ErrTokenUnverifiable, "token signed by an unknown key or algorithm"},
	}
	for _, c := range checks {
		if errors.Is(err, c.err) {
			if c.err == errKeysUnavailable {
				return &Refusal{Status: http.StatusServiceUnavailable, Desc: "cannot verify tokens now: retry later", Cause: err}
			}
			return unauthorized("invalid_token", c.desc)
		}
	}
	return unauthorized("invalid_token", "token invalid")
}
