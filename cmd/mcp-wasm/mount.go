package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// A mount serves a provider under a scheme prefix the operator chooses, so
// two providers whose URI spaces overlap (two files providers, two copies
// of one module) can be served side by side: with mount "docs" the
// provider's file:///a.txt is docs+file:///a.txt to clients. RFC 3986
// allows "+" in a scheme; clients treat URIs as opaque. The provider never
// sees the prefix: every URI is rewritten on the way in and out, and the
// server checks ownership against the mounted URI space.

// validMount reports whether m is a usable mount prefix: 1-32 of [a-z0-9-],
// starting with a letter.
func validMount(m string) bool {
	if m == "" || len(m) > 32 || m[0] < 'a' || m[0] > 'z' {
		return false
	}
	for i := 0; i < len(m); i++ {
		c := m[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// mountURI adds the prefix to the scheme of uri (or of a URI template,
// whose scheme is literal).
func mountURI(mount, uri string) string {
	if mount == "" {
		return uri
	}
	scheme, rest, ok := strings.Cut(uri, ":")
	if !ok {
		return uri
	}
	return mount + "+" + strings.ToLower(scheme) + ":" + rest
}

// unmountURI removes the prefix from a client's URI, or reports false when
// the URI is not under the mount.
func unmountURI(mount, uri string) (string, bool) {
	if mount == "" {
		return uri, true
	}
	n := len(mount) + 1
	if len(uri) <= n || !strings.EqualFold(uri[:n], mount+"+") {
		return "", false
	}
	return uri[n:], true
}

// mountDescribe moves every root of d's URI space under the mount.
func mountDescribe(mount string, d abi.Describe) abi.Describe {
	if mount == "" {
		return d
	}
	roots := make([]abi.URIRoot, len(d.URISpace))
	for i, r := range d.URISpace {
		r.Scheme = mount + "+" + r.Scheme
		roots[i] = r
	}
	d.URISpace = roots
	return d
}

// List implements server.Provider with the provider's URIs mounted.
func (s *served) List(ctx context.Context, cursor string) (*abi.ListResult, error) {
	res, err := s.Provider.List(ctx, cursor)
	if err != nil || s.mount == "" {
		return res, err
	}
	for i := range res.Resources {
		res.Resources[i].URI = mountURI(s.mount, res.Resources[i].URI)
	}
	return res, nil
}

// Templates implements server.Provider with the provider's templates mounted.
func (s *served) Templates(ctx context.Context, cursor string) (*abi.TemplatesResult, error) {
	res, err := s.Provider.Templates(ctx, cursor)
	if err != nil || s.mount == "" {
		return res, err
	}
	for i := range res.ResourceTemplates {
		res.ResourceTemplates[i].URITemplate = mountURI(s.mount, res.ResourceTemplates[i].URITemplate)
	}
	return res, nil
}

// Read implements server.Provider: the provider reads the unmounted URI.
func (s *served) Read(ctx context.Context, uri string) (*abi.ReadResult, error) {
	inner, ok := unmountURI(s.mount, uri)
	if !ok {
		return nil, fmt.Errorf("%w: uri is not under mount %q", abi.ErrNotFound, s.mount)
	}
	res, err := s.Provider.Read(ctx, inner)
	if err != nil || s.mount == "" {
		return res, err
	}
	for i := range res.Contents {
		res.Contents[i].URI = mountURI(s.mount, res.Contents[i].URI)
	}
	return res, nil
}

// Complete implements server.Provider: the provider sees its own template.
func (s *served) Complete(ctx context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error) {
	inner, ok := unmountURI(s.mount, req.Template)
	if !ok {
		return &abi.CompleteResult{Values: []string{}}, nil
	}
	req.Template = inner
	return s.Provider.Complete(ctx, req)
}

// WatchChanges forwards the provider's change feed with its URIs mounted.
func (s *served) WatchChanges(ctx context.Context, cfg runtime.ChangeFeedConfig, report func(*abi.ChangesResult)) error {
	return s.Provider.WatchChanges(ctx, cfg, func(res *abi.ChangesResult) {
		for i := range res.Updated {
			res.Updated[i] = mountURI(s.mount, res.Updated[i])
		}
		report(res)
	})
}
