package server

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/server/auth"
)

func TestHTTPConfig_validate(t *testing.T) {
	tests := []struct {
		name string
		cfg  HTTPConfig
		want string
	}{
		{"default", NewHTTPConfig(), ""},
		{"zero body", NewHTTPConfig().WithMaxBodyBytes(0), "max body"},
		{"rate without burst", NewHTTPConfig().WithRateLimit(5, 0), "rate limit"},
		{"rate off", NewHTTPConfig().WithRateLimit(0, 0), ""},
		{"host with port", NewHTTPConfig().WithAllowedHosts("example.com:80"), "allowed host"},
		{"host with scheme", NewHTTPConfig().WithAllowedHosts("https://example.com"), "allowed host"},
		{"wildcard host", NewHTTPConfig().WithAllowedHosts("*", "*.example.com", "::1", "10.0.0.1"), ""},
		{"origin without scheme", NewHTTPConfig().WithAllowedOrigins("example.com"), "allowed origin"},
		{"origin with path", NewHTTPConfig().WithAllowedOrigins("https://example.com/app"), "allowed origin"},
		{"oauth without issuer", NewHTTPConfig().WithAuth(auth.NewConfig().WithOAuth(auth.OAuthConfig{Resource: "https://x/mcp"})), "issuer"},
		{"oauth over http", NewHTTPConfig().WithAuth(auth.NewConfig().WithOAuth(auth.OAuthConfig{Resource: "https://x/mcp", Issuer: "http://idp.example.com"})), "not https"},
		{"empty token", NewHTTPConfig().WithAuth(auth.NewConfig().WithStaticToken("", "")), "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.validate()
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tt.want)
		})
	}
}
