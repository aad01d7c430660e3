// Command catalog is the catalog example provider in Go: the same
// behaviour as the C, Rust and AssemblyScript versions beside it (see
// ../README.md), checked by guests/catalog's cross-SDK test.
package main

import (
	"context"
	"strconv"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

const (
	itemPrefix = "catalog:///items/"
	template   = "catalog:///items/{id}"
	pageSize   = 3
	cursorWrap = 1_000_000_000
)

type item struct {
	id, title, description, mimeType string
	text                             *string
	blob                             []byte
	annotations                      *abi.Annotations
}

var items = []item{
	{id: "apple", title: "Apple", description: "A crisp fruit.", mimeType: "text/plain", text: new("Apples are crisp.\n"),
		annotations: &abi.Annotations{Audience: []string{"user", "assistant"}, Priority: new(0.5)}},
	{id: "apricot", title: "Apricot", description: "A soft fruit.", mimeType: "text/markdown", text: new("# Apricot\n\nSoft and *orange*.\n")},
	{id: "banana", title: `Banana "the long one"`, description: "Text that every JSON encoder must escape.", mimeType: "text/plain",
		text: new("Quote \" backslash \\ slash / tab\t newline\n return\r control \x01\x1f delete \x7f unicode \u00fcn\u00ef \u20ac \U0001F600 <&> \u2028\n")},
	{id: "blueberry", title: "Blueberry", description: "A small berry.", mimeType: "application/json", text: new(`{"berry":true,"size":"small"}`)},
	{id: "cherry", title: "Cherry", description: "An empty text.", mimeType: "text/plain", text: new("")},
	{id: "kib", title: "One KiB", description: "1024 bytes of text.", mimeType: "text/plain", text: new(strings.Repeat("abcdefghijklmno\n", 64))},
	{id: "logo", title: "Logo", description: "A binary blob.", mimeType: "image/png",
		blob:        []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0x0d, 'I', 'H', 'D', 'R', 0xff, 0x00},
		annotations: &abi.Annotations{Audience: []string{"user"}, Priority: new(0.0), LastModified: "2024-01-02T03:04:05Z"}},
}

func (it *item) size() int64 {
	if it.text != nil {
		return int64(len(*it.text))
	}
	return int64(len(it.blob))
}

// parseCursor reads a cursor: the decimal index of the next item or
// generation, digits only, no leading zero, at most 9 of them.
func parseCursor(c string) (int, bool) {
	if c == "" || len(c) > 9 || (len(c) > 1 && c[0] == '0') {
		return 0, false
	}
	for i := range len(c) {
		if c[i] < '0' || c[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(c)
	return n, err == nil
}

type catalog struct{}

func (catalog) Describe() abi.Describe {
	return abi.Describe{
		Name: "catalog", Version: "1.0.0", Title: "Catalog",
		Description: "An in-memory catalog: the same provider in every mcp-wasm SDK.",
		URISpace:    []abi.URIRoot{{Scheme: "catalog"}},
		Cache:       &abi.CacheHint{TTLMs: 60000, Scope: abi.ScopePublic},
	}
}

func (catalog) List(_ context.Context, cursor string) (*abi.ListResult, error) {
	start := 0
	if cursor != "" {
		n, ok := parseCursor(cursor)
		if !ok || n <= 0 || n >= len(items) {
			return nil, mcpw.InvalidParams("bad cursor %q", cursor)
		}
		start = n
	}
	end := min(start+pageSize, len(items))
	page := &abi.ListResult{Resources: make([]abi.Resource, 0, end-start)}
	for i := start; i < end; i++ {
		it := &items[i]
		page.Resources = append(page.Resources, abi.Resource{
			URI: itemPrefix + it.id, Name: it.id, Title: it.title, Description: it.description,
			MIMEType: it.mimeType, Size: new(it.size()), Annotations: it.annotations,
		})
	}
	if end < len(items) {
		page.NextCursor = strconv.Itoa(end)
	}
	return page, nil
}

func (catalog) Templates(_ context.Context, cursor string) (*abi.TemplatesResult, error) {
	if cursor != "" {
		return nil, mcpw.InvalidParams("bad cursor %q", cursor)
	}
	return &abi.TemplatesResult{ResourceTemplates: []abi.ResourceTemplate{{
		URITemplate: template, Name: "item", Title: "Catalog item", Description: "One item of the catalog, by id.",
	}}}, nil
}

func (catalog) Read(_ context.Context, uri string) (*abi.ReadResult, error) {
	id, ok := strings.CutPrefix(uri, itemPrefix)
	if ok {
		for i := range items {
			it := &items[i]
			if it.id != id {
				continue
			}
			c := mcpw.Blob(uri, it.mimeType, it.blob)
			if it.text != nil {
				c = mcpw.Text(uri, it.mimeType, *it.text)
			}
			return &abi.ReadResult{Contents: []abi.Content{c}}, nil
		}
	}
	return nil, mcpw.NotFound("no item %q", uri)
}

func (catalog) Complete(_ context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error) {
	if req.Template != template || req.Argument.Name != "id" {
		return nil, mcpw.InvalidParams("cannot complete %q of %q: the catalog completes id of %s", req.Argument.Name, req.Template, template)
	}
	values := []string{}
	for _, it := range items {
		if strings.HasPrefix(it.id, req.Argument.Value) {
			values = append(values, it.id)
		}
	}
	return &abi.CompleteResult{Values: values, Total: new(len(values))}, nil
}

// Changes reports a deterministic change sequence: the first call is the
// baseline (cursor "0", no changes); the call with cursor n reports item
// n mod 7 updated, and a list change when n mod 3 is 2.
func (catalog) Changes(_ context.Context, req abi.ChangesRequest) (*abi.ChangesResult, error) {
	if req.Cursor == "" {
		return &abi.ChangesResult{Cursor: "0"}, nil
	}
	n, ok := parseCursor(req.Cursor)
	if !ok {
		return nil, mcpw.InvalidParams("bad cursor %q", req.Cursor)
	}
	return &abi.ChangesResult{
		Cursor:      strconv.Itoa((n + 1) % cursorWrap),
		Updated:     []string{itemPrefix + items[n%len(items)].id},
		ListChanged: n%3 == 2,
	}, nil
}

func init() { mcpw.Register(catalog{}) }

// main is never run: the module is built as a reactor (-buildmode=c-shared).
func main() {}
