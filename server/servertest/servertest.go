// Package servertest provides Provider, an in-process implementation of the
// server.Provider interface backed by Go maps, for tests and benchmarks of
// the MCP layer without WebAssembly. Benchmarks compare it with the wasm
// providers to price the sandbox.
//
//	p := servertest.New("notes", abi.URIRoot{Scheme: "notes"}).
//		AddText("notes:///a", "text/plain", "hello").
//		AddTemplate(abi.ResourceTemplate{URITemplate: "notes:///t/{id}", Name: "t"}, "1", "2")
//
// It does no validation of its own beyond what a well-behaved provider
// does, and it is not meant for production: contents live in memory.
package servertest

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/yosida95/uritemplate/v3"
)

// DefaultPageSize is the default number of items per list or templates page.
const DefaultPageSize = 100

// Intercept runs before every operation with its name (abi.OpList, ...) and
// argument (cursor, uri or template). A non-nil error is returned by the
// operation instead of its result; it may block until ctx is done to
// simulate a hung provider.
type Intercept func(ctx context.Context, op, arg string) error

// Provider is an in-memory provider. Build it with New and the Add and With
// methods, then share it: once serving, it is read-only and safe for
// concurrent use.
type Provider struct {
	desc      abi.Describe
	resources []abi.Resource // sorted by URI
	contents  map[string]abi.Content
	templates []template
	pageSize  int
	intercept Intercept
}

type template struct {
	abi.ResourceTemplate
	parsed *uritemplate.Template
	values []string
}

// New returns an empty provider named name owning space. It implements
// list, templates, read and complete.
func New(name string, space ...abi.URIRoot) *Provider {
	return &Provider{
		desc: abi.Describe{
			Name: name, Version: "1.0.0", URISpace: slices.Clone(space),
			Operations: []string{abi.OpList, abi.OpTemplates, abi.OpRead, abi.OpComplete},
		},
		contents: map[string]abi.Content{},
		pageSize: DefaultPageSize,
	}
}

// AddText adds a text resource.
func (p *Provider) AddText(uri, mimeType, text string) *Provider {
	size := int64(len(text))
	return p.add(abi.Resource{URI: uri, Name: name(uri), MIMEType: mimeType, Size: &size},
		abi.Content{URI: uri, MIMEType: mimeType, Text: &text})
}

// AddBlob adds a binary resource.
func (p *Provider) AddBlob(uri, mimeType string, data []byte) *Provider {
	size := int64(len(data))
	b := base64.StdEncoding.EncodeToString(data)
	return p.add(abi.Resource{URI: uri, Name: name(uri), MIMEType: mimeType, Size: &size},
		abi.Content{URI: uri, MIMEType: mimeType, Blob: &b})
}

// AddResource adds a resource with explicit metadata and contents.
func (p *Provider) AddResource(r abi.Resource, c abi.Content) *Provider { return p.add(r, c) }

func (p *Provider) add(r abi.Resource, c abi.Content) *Provider {
	i, found := slices.BinarySearchFunc(p.resources, r.URI, func(x abi.Resource, uri string) int {
		return strings.Compare(x.URI, uri)
	})
	if found {
		p.resources[i] = r
	} else {
		p.resources = slices.Insert(p.resources, i, r)
	}
	p.contents[r.URI] = c
	return p
}

// AddTemplate adds a template. Reading a URI that matches it returns JSON
// text naming the matched variables; completing any of its arguments
// offers values filtered by prefix. It panics on an invalid template.
func (p *Provider) AddTemplate(t abi.ResourceTemplate, values ...string) *Provider {
	p.templates = append(p.templates, template{
		ResourceTemplate: t, parsed: uritemplate.MustNew(t.URITemplate), values: values,
	})
	return p
}

// Generate adds n text resources of size bytes each, named
// PREFIX000000 ... in URI order (URI = prefix + six-digit index).
func (p *Provider) Generate(prefix string, n, size int) *Provider {
	body := strings.Repeat("x", size)
	for i := range n {
		p.AddText(fmt.Sprintf("%s%06d", prefix, i), "text/plain", body)
	}
	return p
}

// WithPageSize sets the page size of list and templates (default
// DefaultPageSize).
func (p *Provider) WithPageSize(n int) *Provider { p.pageSize = n; return p }

// WithIntercept sets a hook run before every operation.
func (p *Provider) WithIntercept(f Intercept) *Provider { p.intercept = f; return p }

// WithCache sets the describe cache hint.
func (p *Provider) WithCache(h abi.CacheHint) *Provider { p.desc.Cache = &h; return p }

// WithOperations replaces the operations the provider declares.
func (p *Provider) WithOperations(ops ...string) *Provider {
	p.desc.Operations = slices.Clone(ops)
	return p
}

// Describe implements server.Provider.
func (p *Provider) Describe() abi.Describe { return p.desc }

func name(uri string) string {
	if i := strings.LastIndexAny(uri, "/:"); i >= 0 && i < len(uri)-1 {
		return uri[i+1:]
	}
	return uri
}

func (p *Provider) before(ctx context.Context, op, arg string) error {
	if p.intercept != nil {
		if err := p.intercept(ctx, op, arg); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// pageBounds turns a cursor (a decimal offset) into a page [lo, hi) of n items.
func (p *Provider) pageBounds(cursor string, n int) (lo, hi int, next string, err error) {
	if cursor != "" {
		lo, err = strconv.Atoi(cursor)
		if err != nil || lo < 0 || lo > n {
			return 0, 0, "", fmt.Errorf("%w: bad cursor", abi.ErrInvalidParams)
		}
	}
	hi = min(lo+p.pageSize, n)
	if hi < n {
		next = strconv.Itoa(hi)
	}
	return lo, hi, next, nil
}
