package auth

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

func staticConfig() Config {
	return NewConfig().WithStaticToken("alice", "alice-secret").WithStaticToken("", "bob-secret")
}

func TestAuthenticator_matchStatic(t *testing.T) {
	a := New(staticConfig())
	require.Equal(t, "alice", a.matchStatic("alice-secret").Subject)
	require.Regexp(t, `^token-[0-9a-f]{8}$`, a.matchStatic("bob-secret").Subject, "a default subject names no secret")
	require.Nil(t, a.matchStatic(""))
	require.Nil(t, a.matchStatic("alice-secret "))
}

// TestAuthenticate_static: what each Authorization header gets, and the
// challenge written for each refusal.
func TestAuthenticate_static(t *testing.T) {
	a := New(staticConfig())
	tests := []struct {
		name      string
		headers   []string
		subject   string
		status    int
		challenge string
	}{
		{"alice", []string{"Bearer alice-secret"}, "alice", 0, ""},
		{"scheme case", []string{"bearer bob-secret"}, "token-", 0, ""},
		{"no credentials", nil, "", 401, `Bearer realm="mcp-wasm"`},
		{"unknown token", []string{"Bearer nope"}, "", 401, `error="invalid_token"`},
		{"two headers", []string{"Bearer alice-secret", "Bearer alice-secret"}, "", 400, `error="invalid_request"`},
		{"basic", []string{"Basic YWxpY2U6eA=="}, "", 400, `error="invalid_request"`},
		{"space in token", []string{"Bearer alice secret"}, "", 400, `error_description="malformed bearer token"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			for _, h := range tt.headers {
				r.Header.Add("Authorization", h)
			}
			p, refusal := a.Authenticate(r)
			if tt.status == 0 {
				require.Nil(t, refusal)
				require.Contains(t, p.Subject, tt.subject)
				return
			}
			require.Nil(t, p)
			require.Equal(t, tt.status, refusal.Status)
			w := httptest.NewRecorder()
			a.Challenge(w, refusal)
			require.Equal(t, tt.status, w.Code)
			require.Contains(t, w.Header().Get("WWW-Authenticate"), tt.challenge)
			require.NotContains(t, w.Header().Get("WWW-Authenticate"), "resource_metadata", "no OAuth, no metadata")
		})
	}
}

func TestConfig_Validate(t *testing.T) {
	require.NoError(t, NewConfig().Validate())
	require.False(t, NewConfig().Enabled())
	require.ErrorContains(t, NewConfig().WithStaticToken("x", "").Validate(), "empty")
	for _, tt := range []struct {
		o   OAuthConfig
		bad string
	}{
		{OAuthConfig{Resource: "https://mcp.example.com/mcp", Issuer: "https://id.example.com"}, ""},
		{OAuthConfig{Resource: "https://mcp.example.com/mcp", Issuer: "http://localhost:8080"}, ""},
		{OAuthConfig{Resource: "https://mcp.example.com/mcp", Issuer: "http://app.localhost:8080"}, ""},
		{OAuthConfig{Resource: "https://mcp.example.com/mcp", Issuer: "http://[::1]:8080"}, ""},
		{OAuthConfig{Resource: "https://mcp.example.com/mcp", Issuer: "http://id.example.com"}, "not https"},
		{OAuthConfig{Resource: "/mcp", Issuer: "https://id.example.com"}, "not an absolute URL"},
		{OAuthConfig{Resource: "https://mcp.example.com/mcp", Issuer: "https://id.example.com", JWKSURL: "http://keys.example.com"}, "JWKS URL"},
	} {
		c := NewConfig().WithOAuth(tt.o)
		require.True(t, c.Enabled())
		if tt.bad == "" {
			require.NoError(t, c.Validate(), tt.o)
		} else {
			require.ErrorContains(t, c.Validate(), tt.bad, tt.o)
		}
	}
}
