package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// AuthConfig configures how HTTP clients authenticate to /mcp: with static
// bearer tokens, with OAuth 2.1 access tokens (JWTs signed by a configured
// issuer), or with either. It is an immutable value; the zero value and
// NewAuthConfig authenticate nothing (every client is anonymous).
//
// # Security
//
// Static tokens are compared in constant time against their SHA-256
// digests; the tokens themselves are not kept. They carry no scopes and
// grant everything. OAuth tokens must be signed (RS256 or ES256) by a key
// of the issuer's JWKS, name the issuer, name this server in their
// audience, carry an expiry, and hold every required scope. Tokens are
// never passed on to providers.
type AuthConfig struct {
	tokens []staticToken
	oauth  *OAuthConfig
}

// staticToken is an accepted static bearer token, kept as its digest.
type staticToken struct {
	subject string
	digest  [sha256.Size]byte
}

// OAuthConfig configures OAuth 2.1 resource-server mode.
type OAuthConfig struct {
	// Resource is the canonical URL of this server's MCP endpoint, e.g.
	// https://mcp.example.com/mcp: the resource of the RFC 9728 metadata.
	// Required.
	Resource string
	// Issuer is the authorization server's issuer identifier; tokens must
	// carry it as iss. Required.
	Issuer string
	// JWKSURL is where the issuer publishes its signing keys. Defaults to
	// the jwks_uri of the issuer's RFC 8414 (or OpenID) metadata.
	JWKSURL string
	// Audience must be one of a token's aud values. Defaults to Resource.
	Audience string
	// Scopes must all be in a token's scope claim. Defaults to none.
	Scopes []string
	// HTTPClient fetches the issuer's metadata and keys. Defaults to a
	// client with a 10 s timeout.
	HTTPClient *http.Client
}

// NewAuthConfig returns an AuthConfig that authenticates nothing.
func NewAuthConfig() AuthConfig { return AuthConfig{} }

// WithStaticToken accepts token as a bearer token for subject (the name
// audit lines carry; defaults to "token-" and the first 8 hex digits of
// the token's SHA-256).
func (c AuthConfig) WithStaticToken(subject, token string) AuthConfig {
	d := sha256.Sum256([]byte(token))
	if subject == "" {
		subject = "token-" + hex.EncodeToString(d[:4])
	}
	c.tokens = append(slices.Clone(c.tokens), staticToken{subject: subject, digest: d})
	return c
}

// WithOAuth enables OAuth 2.1 resource-server mode.
func (c AuthConfig) WithOAuth(o OAuthConfig) AuthConfig {
	o.Scopes = slices.Clone(o.Scopes)
	c.oauth = &o
	return c
}

// Enabled reports whether clients must authenticate.
func (c AuthConfig) Enabled() bool { return len(c.tokens) > 0 || c.oauth != nil }

func (c AuthConfig) validate() error {
	for _, t := range c.tokens {
		if t.digest == sha256.Sum256(nil) {
			return fmt.Errorf("static bearer token is empty: give a non-empty token")
		}
	}
	if c.oauth == nil {
		return nil
	}
	o := c.oauth
	urls := [][2]string{{"resource", o.Resource}, {"issuer", o.Issuer}, {"JWKS URL", o.JWKSURL}}
	if o.JWKSURL == "" {
		urls = urls[:2]
	}
	for _, u := range urls {
		if err := checkSecureURL(u[1]); err != nil {
			return fmt.Errorf("OAuth %s %q: %w", u[0], u[1], err)
		}
	}
	return nil
}

// checkSecureURL accepts an absolute https URL, or http on a loopback host.
func checkSecureURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Fragment != "" {
		return fmt.Errorf("not an absolute URL: give https://host/path")
	}
	if u.Scheme == "https" || (u.Scheme == "http" && isLocalName(hostname(u.Host))) {
		return nil
	}
	return fmt.Errorf("not https: use https (plain http only on localhost)")
}

// principal is an authenticated client.
type principal struct {
	subject string
	scopes  []string
	expiry  time.Time // zero for static tokens
}

// authError is a refused authentication: the HTTP status and the RFC 6750
// error code ("" when the request carried no credentials).
type authError struct {
	status int
	code   string
	desc   string
	cause  error // logged, never sent
}

func unauthorized(code, desc string) *authError {
	return &authError{status: http.StatusUnauthorized, code: code, desc: desc}
}

// authenticator checks the bearer token of each request.
type authenticator struct {
	tokens      []staticToken
	jwt         *jwtVerifier // nil without OAuth
	scopes      []string
	metadataURL string // resource_metadata of challenges, "" without OAuth
}

func newAuthenticator(c AuthConfig) *authenticator {
	a := &authenticator{tokens: c.tokens}
	if c.oauth != nil {
		a.jwt = newJWTVerifier(*c.oauth)
		a.scopes = c.oauth.Scopes
		a.metadataURL = metadataURL(c.oauth.Resource)
	}
	return a
}

// authenticate returns the client of r, or why it is refused.
func (a *authenticator) authenticate(r *http.Request) (*principal, *authError) {
	values := r.Header.Values("Authorization")
	if len(values) == 0 {
		return nil, unauthorized("", "")
	}
	scheme, token, _ := strings.Cut(values[0], " ")
	if len(values) > 1 || !strings.EqualFold(scheme, "Bearer") {
		return nil, &authError{status: http.StatusBadRequest, code: "invalid_request", desc: "send one Authorization: Bearer header"}
	}
	token = strings.TrimSpace(token)
	if token == "" || strings.ContainsAny(token, " \t") {
		return nil, &authError{status: http.StatusBadRequest, code: "invalid_request", desc: "malformed bearer token"}
	}
	if p := a.matchStatic(token); p != nil {
		return p, nil
	}
	if a.jwt == nil {
		return nil, unauthorized("invalid_token", "unknown token")
	}
	p, aerr := a.jwt.verify(r.Context(), token)
	if aerr != nil {
		return nil, aerr
	}
	for _, s := range a.scopes {
		if !slices.Contains(p.scopes, s) {
			return nil, &authError{status: http.StatusForbidden, code: "insufficient_scope", desc: "token lacks a required scope"}
		}
	}
	return p, nil
}

// matchStatic compares token with every static token in constant time.
func (a *authenticator) matchStatic(token string) *principal {
	d := sha256.Sum256([]byte(token))
	var match *staticToken
	for i := range a.tokens {
		if subtle.ConstantTimeCompare(d[:], a.tokens[i].digest[:]) == 1 {
			match = &a.tokens[i]
		}
	}
	if match == nil {
		return nil
	}
	return &principal{subject: match.subject}
}

// challenge writes a refusal with its WWW-Authenticate header (RFC 6750,
// with resource_metadata per RFC 9728 and the required scopes).
func (a *authenticator) challenge(w http.ResponseWriter, e *authError) {
	params := []string{`realm="mcp-wasm"`}
	if e.code != "" {
		params = append(params, fmt.Sprintf("error=%q", e.code))
	}
	if e.desc != "" {
		params = append(params, fmt.Sprintf("error_description=%q", e.desc))
	}
	if len(a.scopes) > 0 {
		params = append(params, fmt.Sprintf("scope=%q", strings.Join(a.scopes, " ")))
	}
	if a.metadataURL != "" {
		params = append(params, fmt.Sprintf("resource_metadata=%q", a.metadataURL))
	}
	if e.status < http.StatusInternalServerError {
		w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	}
	msg := http.StatusText(e.status)
	if e.desc != "" {
		msg += ": " + e.desc
	}
	http.Error(w, msg, e.status)
}
