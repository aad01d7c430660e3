package auth

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/server/auth/authtest"
)

// TestJWKS_rotationAndOutage: a token signed by a newly published key is
// accepted after one early refetch; an issuer outage before the first
// fetch is 503 (and logged), after it the cached keys keep working.
func TestJWKS_rotationAndOutage(t *testing.T) {
	iss := authtest.NewIssuer(t)
	v := newJWTVerifier(OAuthConfig{Resource: authtest.Resource, Issuer: iss.URL()})
	now := time.Now()
	v.keys.now = func() time.Time { return now }

	iss.SetDown(true)
	_, aerr := v.verify(t.Context(), iss.Sign(t, jwt.SigningMethodRS256, "rsa1", nil, iss.Claims(nil)))
	require.Equal(t, http.StatusServiceUnavailable, aerr.Status)
	require.ErrorIs(t, aerr.Cause, errKeysUnavailable)
	iss.SetDown(false)

	now = now.Add(jwksMinRefresh)
	p, aerr := v.verify(t.Context(), iss.Sign(t, jwt.SigningMethodRS256, "rsa1", nil, iss.Claims(nil)))
	require.Nil(t, aerr)
	require.Equal(t, "carol", p.Subject)
	require.Equal(t, []string{"mcp:read", "profile"}, p.Scopes)

	iss.Publish("rsa2", authtest.RSAKeys()[1])
	now = now.Add(jwksMinRefresh)
	_, aerr = v.verify(t.Context(), iss.Sign(t, jwt.SigningMethodRS256, "rsa2", nil, iss.Claims(nil)))
	require.Nil(t, aerr, "the rotated key is fetched early")

	iss.SetDown(true)
	now = now.Add(jwksTTL)
	_, aerr = v.verify(t.Context(), iss.Sign(t, jwt.SigningMethodRS256, "rsa2", nil, iss.Claims(nil)))
	require.Nil(t, aerr, "stale keys keep working while the issuer is down")
}

func TestJWK_parseRefusesWeakKeys(t *testing.T) {
	b64 := base64.RawURLEncoding.EncodeToString
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	require.NoError(t, err)
	tests := []struct {
		name string
		k    jwk
	}{
		{"RSA 1024", jwk{Kty: "RSA", N: b64(small.N.Bytes()), E: "AQAB"}},
		{"encryption key", jwk{Kty: "RSA", Use: "enc", N: b64(authtest.RSAKeys()[0].N.Bytes()), E: "AQAB"}},
		{"HS256 key", jwk{Kty: "oct", Alg: "HS256"}},
		{"EC off curve", jwk{Kty: "EC", Crv: "P-256", X: b64(make([]byte, 32)), Y: b64(make([]byte, 32))}},
		{"P-384", jwk{Kty: "EC", Crv: "P-384"}},
	}
	for _, tt := range tests {
		_, err := tt.k.parse()
		require.Error(t, err, tt.name)
	}
	_, err = jwk{Kty: "RSA", N: b64(authtest.RSAKeys()[0].N.Bytes()), E: "AQAB"}.parse()
	require.NoError(t, err)
}

func TestDiscoverJWKS_refusesForeignIssuer(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": "https://evil.example.com", "jwks_uri": srv.URL + "/jwks"})
	}))
	defer srv.Close()
	_, err := discoverJWKS(t.Context(), srv.Client(), srv.URL)
	require.ErrorContains(t, err, "names issuer")
}
