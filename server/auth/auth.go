// Package auth authenticates HTTP requests to the MCP endpoint with bearer
// tokens: static tokens the operator lists, and OAuth 2.1 access tokens
// (JWTs signed RS256 or ES256 by a key of one trusted issuer's JWKS), as an
// OAuth resource server (RFC 6750 challenges, RFC 9728 protected-resource
// metadata).
//
//	a := auth.New(auth.NewConfig().WithStaticToken("ci", token))
//	p, refusal := a.Authenticate(r)
//	if refusal != nil { a.Challenge(w, refusal); return }
//	// p.Kind, p.Issuer and p.Subject together are who sent r
//
// It refuses to do anything else: it issues no tokens, runs no
// authorization server, knows no MCP and no provider, and never passes a
// token on. package server runs it before any MCP handling.
//
// # Security
//
// Static tokens are compared in constant time against their SHA-256
// digests; the tokens themselves are not kept. They carry no scopes and
// grant everything, unless the server's access rules say otherwise (they
// match a token's name, an OAuth subject, scopes and string claims). OAuth tokens must be signed (RS256 or ES256, never
// "none" or HMAC) by a key of the issuer's JWKS, name the issuer, name this
// server in their audience, carry an expiry, and hold every required
// scope. Issuer, resource and key-set URLs must be https (plain http only
// on localhost). What a client is told about a refused token says which
// check failed, never more; why the issuer's keys could not be fetched goes
// to the caller's log only.
package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Config configures how HTTP clients authenticate: with static bearer
// tokens, with OAuth 2.1 access tokens, or with either. It is an immutable
// value; the zero value and NewConfig authenticate nothing (every client is
// anonymous).
type Config struct {
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

// NewConfig returns a Config that authenticates nothing.
func NewConfig() Config { return Config{} }

// WithStaticToken accepts token as a bearer token for subject (the name
// audit lines carry; defaults to "token-" and the first 8 hex digits of
// the token's SHA-256).
func (c Config) WithStaticToken(subject, token string) Config {
	d := sha256.Sum256([]byte(token))
	if subject == "" {
		subject = "token-" + hex.EncodeToString(d[:4])
	}
	c.tokens = append(slices.Clone(c.tokens), staticToken{subject: subject, digest: d})
	return c
}

// WithOAuth enables OAuth 2.1 resource-server mode.
func (c Config) WithOAuth(o OAuthConfig) Config {
	o.Scopes = slices.Clone(o.Scopes)
	c.oauth = &o
	return c
}

// Enabled reports whether clients must authenticate.
func (c Config) Enabled() bool { return len(c.tokens) > 0 || c.oauth != nil }

// Validate reports the first problem of c: an empty static token, or an
// OAuth URL that is not absolute https (plain http only on localhost).
func (c Config) Validate() error {
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
	if u.Scheme == "https" || (u.Scheme == "http" && isLocalHost(u.Hostname())) {
		return nil
	}
	return fmt.Errorf("not https: use https (plain http only on localhost)")
}

// isLocalHost reports whether host is localhost (or a name under it) or a
// loopback address.
func isLocalHost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// Kinds of principal: what vouches for the subject. Subjects of
// different kinds, or of the same kind from different issuers, name
// different clients even when they are equal strings.
const (
	KindStatic   = "static"    // a static token the operator listed
	KindSubject  = "sub"       // a JWT's sub claim
	KindClientID = "client_id" // a JWT's client_id claim (a JWT without sub)
)

// Principal is an authenticated client. Kind, Issuer and Subject together
// name it; Subject alone does not.
type Principal struct {
	// Kind is KindStatic, KindSubject or KindClientID.
	Kind string
	// Issuer is the JWT's issuer; "" for static tokens.
	Issuer string
	// Subject names the client within its kind and issuer: a static
	// token's subject, or the JWT's sub (else client_id).
	Subject string
	// Scopes are the JWT's scopes; nil for static tokens.
	Scopes []string
	// Expiry is when the JWT expires; zero for static tokens.
	Expiry time.Time
	// Claims are the JWT's other claims whose values are a string or a
	// list of strings (a group or tenant claim), for access rules; nil for
	// static tokens. They are bounded (claims.go).
	Claims map[string][]string
}

// Refusal is a refused authentication: the HTTP status to answer and the
// RFC 6750 error code ("" when the request carried no credentials).
type Refusal struct {
	Status int
	Code   string
	// Desc is the error_description the client is told: which check
	// failed, never more.
	Desc string
	// Cause is why the refusal is the server's fault (the issuer's keys
	// could not be fetched): for the operator's log, never for the client.
	Cause error
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("authentication refused: %d %s %s", r.Status, r.Code, r.Desc)
}

func unauthorized(code, desc string) *Refusal {
	return &Refusal{Status: http.StatusUnauthorized, Code: code, Desc: desc}
}

// Authenticator checks the bearer token of each request. It is safe for
// concurrent use.
type Authenticator struct {
	tokens      []staticToken
	jwt         *jwtVerifier // nil without OAuth
	oauth       *OAuthConfig // nil without OAuth
	scopes      []string
	metadataURL string // resource_metadata of challenges, "" without OAuth
}

// New returns the Authenticator of c. Check c with Validate first.
func New(c Config) *Authenticator {
	a := &Authenticator{tokens: c.tokens}
	if c.oauth != nil {
		a.jwt = newJWTVerifier(*c.oauth)
		a.oauth = c.oauth
		a.scopes = c.oauth.Scopes
		a.metadataURL = metadataURL(c.oauth.Resource)
	}
	return a
}

// Authenticate returns the client of r, or why it is refused.
func (a *Authenticator) Authenticate(r *http.Request) (*Principal, *Refusal) {
	values := r.Header.Values("Authorization")
	if len(values) == 0 {
		return nil, unauthorized("", "")
	}
	scheme, token, _ := strings.Cut(values[0], " ")
	if len(values) > 1 || !strings.EqualFold(scheme, "Bearer") {
		return nil, &Refusal{Status: http.StatusBadRequest, Code: "invalid_request", Desc: "send one Authorization: Bearer header"}
	}
	token = strings.TrimSpace(token)
	if token == "" || strings.ContainsAny(token, " \t") {
		return nil, &Refusal{Status: http.StatusBadRequest, Code: "invalid_request", Desc: "malformed bearer token"}
	}
	if p := a.matchStatic(token); p != nil {
		return p, nil
	}
	if a.jwt == nil {
		return nil, unauthorized("invalid_token", "unknown token")
	}
	p, refusal := a.jwt.verify(r.Context(), token)
	if refusal != nil {
		return nil, refusal
	}
	for _, s := range a.scopes {
		if !slices.Contains(p.Scopes, s) {
			return nil, &Refusal{Status: http.StatusForbidden, Code: "insufficient_scope", Desc: "token lacks a required scope"}
		}
	}
	return p, nil
}

// matchStatic compares token with every static token in constant time.
func (a *Authenticator) matchStatic(token string) *Principal {
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
	return &Principal{Kind: KindStatic, Subject: match.subject}
}

// Challenge writes a refusal with its WWW-Authenticate header (RFC 6750,
// with resource_metadata per RFC 9728 and the required scopes).
func (a *Authenticator) Challenge(w http.ResponseWriter, e *Refusal) {
	params := []string{`realm="mcp-wasm"`}
	if e.Code != "" {
		params = append(params, fmt.Sprintf("error=%q", e.Code))
	}
	if e.Desc != "" {
		params = append(params, fmt.Sprintf("error_description=%q", e.Desc))
	}
	if len(a.scopes) > 0 {
		params = append(params, fmt.Sprintf("scope=%q", strings.Join(a.scopes, " ")))
	}
	if a.metadataURL != "" {
		params = append(params, fmt.Sprintf("resource_metadata=%q", a.metadataURL))
	}
	if e.Status < http.StatusInternalServerError {
		w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	}
	msg := http.StatusText(e.Status)
	if e.Desc != "" {
		msg += ": " + e.Desc
	}
	http.Error(w, msg, e.Status)
}
