package auth

import (
	"net/http"
	"net/url"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// MetadataPath is where RFC 9728 puts the protected-resource metadata of a
// resource at the root of its host; a resource with a path has it at
// MetadataPath followed by that path as well.
const MetadataPath = "/.well-known/oauth-protected-resource"

// Metadata returns the RFC 9728 metadata handler of this server and the
// paths to serve it at, or nil and none without OAuth. It says what the
// resource is, the one authorization server that issues its tokens, the
// scopes it requires, and that tokens go in the Authorization header.
func (a *Authenticator) Metadata() (http.Handler, []string) {
	if a.oauth == nil {
		return nil, nil
	}
	o := a.oauth
	h := sdkauth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               o.Resource,
		AuthorizationServers:   []string{o.Issuer},
		ScopesSupported:        o.Scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "mcp-wasm",
	})
	paths := []string{MetadataPath}
	if p := resourcePath(o.Resource); p != "" {
		paths = append(paths, MetadataPath+p)
	}
	return h, paths
}

// metadataURL is where RFC 9728 §3.1 puts the metadata of resource: the
// well-known path inserted between the host and the resource's path.
func metadataURL(resource string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host + MetadataPath + resourcePath(resource)
}

// resourcePath is the path of the resource URL, without a trailing slash.
func resourcePath(resource string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(u.Path, "/")
}
