package auth_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/server/auth"
	"github.com/mcp-wasm/mcp-wasm/server/auth/authtest"
)

// TestAuthenticate_principalKinds: a principal says what vouches for its
// subject, so that equal subjects of a static token, a JWT's sub and a
// JWT's client_id stay apart.
func TestAuthenticate_principalKinds(t *testing.T) {
	iss := authtest.NewIssuer(t)
	a := auth.New(auth.NewConfig().WithStaticToken("alice", "alice-secret").
		WithOAuth(auth.OAuthConfig{Resource: authtest.Resource, Issuer: iss.URL()}))
	rs := jwt.SigningMethodRS256
	tests := []struct {
		name, token string
		want        auth.Principal
	}{
		{"static", "alice-secret", auth.Principal{Kind: auth.KindStatic, Subject: "alice"}},
		{"sub", iss.Sign(t, rs, "rsa1", nil, iss.Claims(map[string]any{"sub": "alice", "client_id": "app"})),
			auth.Principal{Kind: auth.KindSubject, Issuer: iss.URL(), Subject: "alice"}},
		{"client_id", iss.Sign(t, rs, "rsa1", nil, iss.Claims(map[string]any{"sub": nil, "client_id": "alice"})),
			auth.Principal{Kind: auth.KindClientID, Issuer: iss.URL(), Subject: "alice"}},
	}
	for _, tt := range tests {
		r := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/mcp", nil)
		r.Header.Set("Authorization", "Bearer "+tt.token)
		p, refusal := a.Authenticate(r)
		require.Nil(t, refusal, tt.name)
		require.Equal(t, tt.want.Kind, p.Kind, tt.name)
		require.Equal(t, tt.want.Issuer, p.Issuer, tt.name)
		require.Equal(t, tt.want.Subject, p.Subject, tt.name)
	}
}
