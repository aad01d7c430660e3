package server

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
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"
)

// testIssuer is a local OAuth authorization server: RFC 8414 metadata and
// a JWKS, with keys the test signs tokens with.
type testIssuer struct {
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

// testRSAKeys generates two RSA keys once per test process.
func testRSAKeys(t testing.TB) [2]*rsa.PrivateKey {
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

func newTestIssuer(t testing.TB) *testIssuer {
	t.Helper()
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	iss := &testIssuer{keys: map[string]crypto.Signer{"rsa1": testRSAKeys(t)[0], "ec1": ec}}
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

func (iss *testIssuer) jwks() []map[string]string {
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

// publish adds a key to the JWKS (a rotation).
func (iss *testIssuer) publish(kid string, k crypto.Signer) {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	iss.keys[kid] = k
}

// sign makes a token signed with key kid (or key, when given).
func (iss *testIssuer) sign(t testing.TB, method jwt.SigningMethod, kid string, key any, claims jwt.MapClaims) string {
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

const testResource = "https://mcp.example.com/mcp"

// claims are valid claims for the test resource, with overrides.
func (iss *testIssuer) claims(over map[string]any) jwt.MapClaims {
	now := time.Now()
	c := jwt.MapClaims{"iss": iss.srv.URL, "sub": "carol", "aud": []string{testResource, "other"},
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

func oauthServer(t testing.TB, iss *testIssuer, scopes ...string) (string, *logBuffer) {
	t.Helper()
	log, buf := newLogger()
	s := newServer(t, NewConfig().WithProviders(notesProvider()).WithLogger(log))
	auth := NewAuthConfig().WithOAuth(OAuthConfig{Resource: testResource, Issuer: iss.srv.URL, Scopes: scopes})
	return serveHTTP(t, s, NewHTTPConfig().WithAuth(auth)), buf
}

// TestHTTP_oauth: every JWT check, on the wire, against a local issuer.
func TestHTTP_oauth(t *testing.T) {
	iss := newTestIssuer(t)
	url, logs := oauthServer(t, iss, "mcp:read")
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	rs, es := jwt.SigningMethodRS256, jwt.SigningMethodES256
	past := time.Now().Add(-time.Hour).Unix()
	pubDER := testRSAKeys(t)[0].PublicKey.N.Bytes()
	tests := []struct {
		name   string
		token  string
		status int
		want   string // in WWW-Authenticate
	}{
		{"RS256", iss.sign(t, rs, "rsa1", nil, iss.claims(nil)), 200, ""},
		{"ES256", iss.sign(t, es, "ec1", nil, iss.claims(nil)), 200, ""},
		{"scp list", iss.sign(t, rs, "rsa1", nil, iss.claims(map[string]any{"scope": nil, "scp": []string{"mcp:read"}})), 200, ""},
		{"expired", iss.sign(t, rs, "rsa1", nil, iss.claims(map[string]any{"exp": past})), 401, "token expired"},
		{"no expiry", iss.sign(t, rs, "rsa1", nil, iss.claims(map[string]any{"exp": nil})), 401, "required claim"},
		{"not yet valid", iss.sign(t, rs, "rsa1", nil, iss.claims(map[string]any{"nbf": time.Now().Add(time.Hour).Unix()})), 401, "not valid yet"},
		{"other audience", iss.sign(t, rs, "rsa1", nil, iss.claims(map[string]any{"aud": "https://other.example.com/mcp"})), 401, "audience"},
		{"other issuer", iss.sign(t, rs, "rsa1", nil, iss.claims(map[string]any{"iss": "https://evil.example.com"})), 401, "issuer"},
		{"no subject", iss.sign(t, rs, "rsa1", nil, iss.claims(map[string]any{"sub": nil})), 401, "no subject"},
		{"forged signature", iss.sign(t, rs, "rsa1", other, iss.claims(nil)), 401, "signature invalid"},
		{"unknown kid", iss.sign(t, rs, "nope", other, iss.claims(nil)), 401, "unknown key"},
		{"alg none", iss.sign(t, jwt.SigningMethodNone, "rsa1", jwt.UnsafeAllowNoneSignatureType, iss.claims(nil)), 401, "invalid_token"},
		{"HS256 with the public key", iss.sign(t, jwt.SigningMethodHS256, "rsa1", pubDER, iss.claims(nil)), 401, "invalid_token"},
		{"RS256 header on the EC key", iss.sign(t, rs, "ec1", testRSAKeys(t)[0], iss.claims(nil)), 401, "invalid_token"},
		{"garbage", "not.a.jwt", 401, "malformed"},
		{"missing scope", iss.sign(t, rs, "rsa1", nil, iss.claims(map[string]any{"scope": "profile"})), 403, `error="insufficient_scope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdr := modernHeaders("resources/read", "notes:///hello")
			hdr["Authorization"] = "Bearer " + tt.token
			status, h, body := rawPost(t, url, hdr, modernRead("notes:///hello"))
			require.Equal(t, tt.status, status, body)
			if tt.status != 200 {
				c := h.Get("WWW-Authenticate")
				require.Contains(t, c, tt.want)
				require.Contains(t, c, `resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"`)
				require.Contains(t, c, `scope="mcp:read"`)
			}
		})
	}
	require.Equal(t, int32(1), iss.fetches.Load(), "keys fetched once: unknown kids refetch at most every jwksMinRefresh")
	require.Contains(t, logs.String(), `who=carol`, "the audit line names the token subject")
}

// TestHTTP_oauthChallengeWithoutToken: no token is 401 with the metadata
// pointer and no error code (RFC 6750 §3.1); the metadata is served at
// both well-known paths, without authentication.
func TestHTTP_oauthChallengeWithoutToken(t *testing.T) {
	iss := newTestIssuer(t)
	url, _ := oauthServer(t, iss)
	status, h, _ := rawPost(t, url, modernHeaders("resources/read", "notes:///hello"), modernRead("notes:///hello"))
	require.Equal(t, http.StatusUnauthorized, status)
	c := h.Get("WWW-Authenticate")
	require.NotContains(t, c, "error=")
	require.Contains(t, c, "resource_metadata=")

	base := strings.TrimSuffix(url, MCPPath)
	for _, p := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+p, nil)
		require.NoError(t, err)
		status, _, body := do(t, req)
		require.Equal(t, http.StatusOK, status, p)
		var meta map[string]any
		require.NoError(t, json.Unmarshal([]byte(body), &meta))
		require.Equal(t, testResource, meta["resource"])
		require.Equal(t, []any{iss.srv.URL}, meta["authorization_servers"])
	}
}
