// Package authtest is a local OAuth 2.1 authorization server for tests: it
// publishes RFC 8414 metadata and a JWKS over httptest, and signs access
// tokens with the keys it publishes (or with any other key, to forge one).
// Tests only: production code never imports it.
package authtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"
)

// Resource is the protected resource the issuer's tokens name by default.
const Resource = "https://mcp.example.com/mcp"

// Issuer is a local authorization server: RFC 8414 metadata at
// /.well-known/oauth-authorization-server and a JWKS at /jwks, holding an
// RSA key "rsa1" and a P-256 key "ec1" at the start.
type Issuer struct {
	srv     *httptest.Server
	mu      sync.Mutex
	keys    map[string]crypto.Signer // published, by kid
	fetches atomic.Int32
	down    atomic.Bool
}

var (
	rsaOnce sync.Once
	rsaKeys [2]*rsa.PrivateKey
)

// RSAKeys returns two 2048-bit RSA keys, generated once per test process;
// the first is the issuer's "rsa1".
func RSAKeys() [2]*rsa.PrivateKey {
	rsaOnce.Do(func() {
		for i := range rsaKeys {
			k, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				panic(err)
			}
			rsaKeys[i] = k
		}
	})
	return rsaKeys
}

// NewIssuer starts an issuer, stopped when the test ends.
func NewIssuer(t testing.TB) *Issuer {
	t.Helper()
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	iss := &Issuer{keys: map[string]crypto.Signer{"rsa1": RSAKeys()[0], "ec1": ec}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": iss.srv.URL, "jwks_uri": iss.srv.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, _ *http.Request) {
		if iss.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		iss.fetches.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": iss.jwks()})
	})
	iss.srv = httptest.NewServer(mux)
	t.Cleanup(iss.srv.Close)
	return iss
}

// URL is the issuer identifier (and the base of its endpoints).
func (iss *Issuer) URL() string { return iss.srv.URL }

// Fetches counts the JWKS documents served.
func (iss *Issuer) Fetches() int32 { return iss.fetches.Load() }

// SetDown makes the JWKS endpoint answer 503 (an outage) or serve again.
func (iss *Issuer) SetDown(down bool) { iss.down.Store(down) }

func (iss *Issuer) jwks() []map[string]string {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	b64 := base64.RawURLEncoding.EncodeToString
	var out []map[string]string
	for kid, k := range iss.keys {
		switch pub := k.Public().(type) {
		case *rsa.PublicKey:
			out = append(out, map[string]string{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
				"n": b64(pub.N.Bytes()), "e": b64(big.NewInt(int64(pub.E)).Bytes())})
		case *ecdsa.PublicKey:
			b, _ := pub.Bytes()
			out = append(out, map[string]string{"kty": "EC", "kid": kid, "crv": "P-256", "x": b64(b[1:33]), "y": b64(b[33:])})
		}
	}
	return out
}

// Publish adds a key to the JWKS (a rotation).
func (iss *Issuer) Publish(kid string, k crypto.Signer) {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	iss.keys[kid] = k
}

// Sign makes a token whose header names kid, signed with the published
// key kid, or with key when it is not nil (a forgery, or another algorithm).
func (iss *Issuer) Sign(t testing.TB, method jwt.SigningMethod, kid string, key any, claims jwt.MapClaims) string {
	t.Helper()
	if key == nil {
		iss.mu.Lock()
		key = iss.keys[kid]
		iss.mu.Unlock()
	}
	tok := jwt.NewWithClaims(method, claims)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(key)
	require.NoError(t, err)
	return s
}

// Claims are valid claims for Resource (subject "carol", scopes "mcp:read
// profile", an hour to live), with overrides: a nil value removes a claim.
func (iss *Issuer) Claims(over map[string]any) jwt.MapClaims {
	now := time.Now()
	c := jwt.MapClaims{"iss": iss.srv.URL, "sub": "carol", "aud": []string{Resource, "other"},
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "scope": "mcp:read profile"}
	for k, v := range over {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}
