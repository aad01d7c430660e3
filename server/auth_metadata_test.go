package server

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
