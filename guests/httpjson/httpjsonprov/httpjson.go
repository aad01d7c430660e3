// Package httpjsonprov is the logic of the httpjson provider
// (guests/httpjson): the JSON documents of an HTTP API, fetched through the
// host, as httpjson:/// resources. It is plain Go on the mcpw SDK, so it
// runs in the wasm guest and natively in tests with a fake Fetcher.
package httpjsonprov

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// Config keys the provider reads.
const (
	KeyBaseURL = "base_url"
	KeyPaths   = "paths"
	KeyToken   = "token"
)

const (
	scheme    = "httpjson"
	uriPrefix = scheme + ":///"
	mimeJSON  = "application/json"
	maxPath   = 512
)

type provider struct{}

// New returns the provider.
func New() mcpw.Provider { return provider{} }

func (provider) Describe() abi.Describe {
	return abi.Describe{
		Name:    "httpjson",
		Version: "1.0.0",
		Title:   "JSON HTTP API",
		Description: "JSON documents of the HTTP API at config base_url, as httpjson:///PATH resources " +
			"(GET base_url + PATH). Grant HTTP to base_url's prefix for it to work.",
		URISpace: []abi.URIRoot{{Scheme: scheme}},
		Requests: &abi.Requests{Config: []abi.ConfigRequest{
			{Key: KeyBaseURL, Required: true, Reason: "the API root, an http or https URL such as https://api.example.com/v1/"},
			{Key: KeyPaths, Reason: "comma-separated API paths to list as resources, such as users,status"},
			{Key: KeyToken, Secret: true, Reason: "bearer token sent to the API, if it needs one"},
		}},
	}
}

func (provider) List(ctx context.Context, cursor string) (*abi.ListResult, error) {
	if cursor != "" {
		return nil, mcpw.InvalidParams("unknown cursor")
	}
	out := &abi.ListResult{Resources: []abi.Resource{}}
	raw, _ := mcpw.Config(ctx, KeyPaths)
	for _, p := range strings.Split(raw, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !validPath(p) {
			return nil, mcpw.Internal("config %s: path %q has '.', '..' or empty segments or characters outside [A-Za-z0-9._~-]", KeyPaths, p)
		}
		out.Resources = append(out.Resources, abi.Resource{URI: uriPrefix + p, Name: p, MIMEType: mimeJSON})
	}
	return out, nil
}

func (provider) Templates(context.Context, string) (*abi.TemplatesResult, error) {
	return &abi.TemplatesResult{ResourceTemplates: []abi.ResourceTemplate{{
		URITemplate: uriPrefix + "{+path}", Name: "api-path", Title: "Any JSON document under base_url", MIMEType: mimeJSON,
	}}}, nil
}

func (provider) Read(ctx context.Context, uri string) (*abi.ReadResult, error) {
	path, ok := strings.CutPrefix(uri, uriPrefix)
	if !ok || !validPath(path) {
		return nil, mcpw.InvalidParams("want %s{path} with segments of [A-Za-z0-9._~-], no '.' or '..'", uriPrefix)
	}
	base, err := baseURL(ctx)
	if err != nil {
		return nil, err
	}
	headers := map[string]string{"Accept": mimeJSON}
	if tok, ok := mcpw.Config(ctx, KeyToken); ok && tok != "" {
		headers["Authorization"] = "Bearer " + tok
	}
	resp, err := mcpw.Get(ctx, base+path, headers)
	if err != nil {
		return nil, mcpw.Internal("fetch %s: %v", path, err)
	}
	switch {
	case resp.Status == 404 || resp.Status == 410:
		return nil, mcpw.NotFound("%s: the API answered %d", path, resp.Status)
	case resp.Status < 200 || resp.Status > 299:
		return nil, mcpw.Internal("%s: the API answered %d", path, resp.Status)
	case !json.Valid(resp.Body):
		return nil, mcpw.Internal("%s: the API's answer is not JSON", path)
	}
	text := string(resp.Body)
	return &abi.ReadResult{Contents: []abi.Content{{URI: uri, MIMEType: mimeJSON, Text: &text}}}, nil
}

// baseURL reads base_url: an absolute http(s) URL without query or
// fragment, returned ending in "/".
func baseURL(ctx context.Context) (string, error) {
	raw, ok := mcpw.Config(ctx, KeyBaseURL)
	if !ok {
		return "", mcpw.Internal("config %s is not granted: the operator must grant it (--config-value %s=https://...)", KeyBaseURL, KeyBaseURL)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", mcpw.Internal("config %s must be an http or https URL without query or fragment", KeyBaseURL)
	}
	if !strings.HasSuffix(raw, "/") {
		raw += "/"
	}
	return raw, nil
}

// validPath accepts API paths of unreserved characters in non-empty,
// non-dot segments.
func validPath(p string) bool {
	if p == "" || len(p) > maxPath {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
				return false
			}
		}
	}
	return true
}
