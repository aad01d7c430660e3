package server

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// protectedResourceMetadata serves the RFC 9728 metadata of this server:
// the resource, the one authorization server that issues its tokens, the
// scopes it requires, and that tokens go in the Authorization header.
func protectedResourceMetadata(o OAuthConfig) http.Handler {
	return auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               o.Resource,
		AuthorizationServers:   []string{o.Issuer},
		ScopesSupported:        o.Scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "mcp-wasm",
	})
}

// metadataURL is where RFC 9728 §3.1 puts the metadata of resource: the
// well-known path inserted between the host and the resource's path.
func metadataURL(resource string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host + metadataPath + resourcePath(resource)
}

// resourcePath is the path of the resource URL, without a trailing slash.
func resourcePath(resource string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(u.Path, "/")
}
