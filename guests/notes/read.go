package main

import (
	"context"
	"net/url"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// Read serves notes:///{id} (one content) and notes:///tag/{tag} (one
// content per note with the tag).
func (n *notes) Read(ctx context.Context, uri string) (*abi.ReadResult, error) {
	path, err := notePath(uri)
	if err != nil {
		return nil, err
	}
	if tag, ok := strings.CutPrefix(path, tagPrefix); ok {
		idx := n.byTag[tag]
		if len(idx) == 0 {
			return nil, mcpw.NotFound("no note has tag %q", tag)
		}
		res := &abi.ReadResult{Contents: make([]abi.Content, 0, len(idx)), Cache: cacheHint}
		for _, i := range idx {
			res.Contents = append(res.Contents, n.sorted[i].content())
		}
		return res, nil
	}
	i, ok := n.byID[path]
	if !ok {
		return nil, mcpw.NotFound("no note %q", path)
	}
	return &abi.ReadResult{Contents: []abi.Content{n.sorted[i].content()}, Cache: cacheHint}, nil
}

func (nt *note) content() abi.Content {
	c := mcpw.Text(nt.uri(), markdown, nt.text())
	c.Annotations = nt.annotations()
	return c
}

// notePath returns the unescaped path of a notes:/// URI without its
// leading slash, or an invalid_params error.
func notePath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != scheme || u.Host != "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", mcpw.InvalidParams("not a notes URI: want notes:///{id} or notes:///tag/{tag}")
	}
	path, ok := strings.CutPrefix(u.Path, "/")
	if !ok || path == "" {
		return "", mcpw.InvalidParams("not a notes URI: want notes:///{id} or notes:///tag/{tag}")
	}
	return path, nil
}
