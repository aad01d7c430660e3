package auth

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMetadataURL(t *testing.T) {
	for resource, want := range map[string]string{
		"https://mcp.example.com/mcp":      "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
		"https://mcp.example.com/":         "https://mcp.example.com/.well-known/oauth-protected-resource",
		"https://mcp.example.com:8443/a/b": "https://mcp.example.com:8443/.well-known/oauth-protected-resource/a/b",
	} {
		require.Equal(t, want, metadataURL(resource), resource)
	}
}

func TestMetadata_paths(t *testing.T) {
	h, paths := New(NewConfig().WithStaticToken("a", "b")).Metadata()
	require.Nil(t, h)
	require.Empty(t, paths)
	h, paths = New(NewConfig().WithOAuth(OAuthConfig{Resource: "https://mcp.example.com/mcp", Issuer: "https://id.example.com"})).Metadata()
	require.NotNil(t, h)
	require.Equal(t, []string{MetadataPath, MetadataPath + "/mcp"}, paths)
	_, paths = New(NewConfig().WithOAuth(OAuthConfig{Resource: "https://mcp.example.com/", Issuer: "https://id.example.com"})).Metadata()
	require.Equal(t, []string{MetadataPath}, paths)
}
