package server

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testlog"
	"github.com/mcp-wasm/mcp-wasm/server/auth"
	"github.com/mcp-wasm/mcp-wasm/server/auth/authtest"
)

func oauthServer(t testing.TB, iss *authtest.Issuer, scopes ...string) (string, *testlog.Buffer) {
	t.Helper()
	log, buf := newLogger()
	s := newServer(t, NewConfig().WithProviders(notesProvider()).WithLogger(log))
	a := auth.NewConfig().WithOAuth(auth.OAuthConfig{Resource: authtest.Resource, Issuer: iss.URL(), Scopes: scopes})
	return serveHTTP(t, s, NewHTTPConfig().WithAuth(a)), buf
}

// TestHTTP_oauth: every JWT check, on the wire, against a local issuer.
func TestHTTP_oauth(t *testing.T) {
	iss := authtest.NewIssuer(t)
	url, logs := oauthServer(t, iss, "mcp:read")
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	rs, es := jwt.SigningMethodRS256, jwt.SigningMethodES256
	past := time.Now().Add(-time.Hour).Unix()
	pubDER := authtest.RSAKeys()[0].PublicKey.N.Bytes()
	tests := []struct {
		name   string
		token  string
		status int
		want   string // in WWW-Authenticate
	}{
		{"RS256", iss.Sign(t, rs, "rsa1", nil, iss.Claims(nil)), 200, ""},
		{"ES256", iss.Sign(t, es, "ec1", nil, iss.Claims(nil)), 200, ""},
		{"scp list", iss.Sign(t, rs, "rsa1", nil, iss.Claims(map[string]any{"scope": nil, "scp": []string{"mcp:read"}})), 200, ""},
		{"expired", iss.Sign(t, rs, "rsa1", nil, iss.Claims(map[string]any{"exp": past})), 401, "token expired"},
		{"no expiry", iss.Sign(t, rs, "rsa1", nil, iss.Claims(map[string]any{"exp": nil})), 401, "required claim"},
		{"not yet valid", iss.Sign(t, rs, "rsa1", nil, iss.Claims(map[string]any{"nbf": time.Now().Add(time.Hour).Unix()})), 401, "not valid yet"},
		{"other audience", iss.Sign(t, rs, "rsa1", nil, iss.Claims(map[string]any{"aud": "https://other.example.com/mcp"})), 401, "audience"},
		{"other issuer", iss.Sign(t, rs, "rsa1", nil, iss.Claims(map[string]any{"iss": "https://evil.example.com"})), 401, "issuer"},
		{"no subject", iss.Sign(t, rs, "rsa1", nil, iss.Claims(map[string]any{"sub": nil})), 401, "no subject"},
		{"forged signature", iss.Sign(t, rs, "rsa1", other, iss.Claims(nil)), 401, "signature invalid"},
		{"unknown kid", iss.Sign(t, rs, "nope", other, iss.Claims(nil)), 401, "unknown key"},
		{"alg none", iss.Sign(t, jwt.SigningMethodNone, "rsa1", jwt.UnsafeAllowNoneSignatureType, iss.Claims(nil)), 401, "invalid_token"},
		{"HS256 with the public key", iss.Sign(t, jwt.SigningMethodHS256, "rsa1", pubDER, iss.Claims(nil)), 401, "invalid_token"},
		{"RS256 header on the EC key", iss.Sign(t, rs, "ec1", authtest.RSAKeys()[0], iss.Claims(nil)), 401, "invalid_token"},
		{"garbage", "not.a.jwt", 401, "malformed"},
		{"missing scope", iss.Sign(t, rs, "rsa1", nil, iss.Claims(map[string]any{"scope": "profile"})), 403, `error="insufficient_scope"`},
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
	require.Equal(t, int32(1), iss.Fetches(), "keys fetched once: unknown kids refetch at most every jwksMinRefresh")
	who := "who=oauth:" + strconv.Itoa(len(iss.URL())) + ":" + iss.URL() + ":sub:carol "
	require.Contains(t, logs.String(), who, "the audit line names the principal: issuer and subject")
}

// TestHTTP_oauthChallengeWithoutToken: no token is 401 with the metadata
// pointer and no error code (RFC 6750 §3.1); the metadata is served at
// both well-known paths, without authentication.
func TestHTTP_oauthChallengeWithoutToken(t *testing.T) {
	iss := authtest.NewIssuer(t)
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
		require.Equal(t, authtest.Resource, meta["resource"])
		require.Equal(t, []any{iss.URL()}, meta["authorization_servers"])
	}
}
