// Package benchprov is the benchmark provider's logic: fixed-size resources
// under the bench: scheme, so host overhead can be measured apart from guest
// work. It is plain Go, compiled both into the bench guest (guests/bench)
// and natively into benchmarks that compare the sandbox with no sandbox.
package benchprov

import (
	"context"
	"strconv"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// Items is the number of resources list returns in one page.
const Items = 100

// Provider serves bench:///1k (1 KiB of text), bench:///1m (1 MiB of text)
// and bench:///item/N for N < Items.
//
// Everything it serves is built once, in New: the point is to measure what
// the SDK and the host add to a call, not the provider's own work.
type Provider struct {
	oneK, oneM string
	page       []abi.Resource // the one list page
}

// New returns a bench provider.
func New() *Provider {
	p := &Provider{oneK: strings.Repeat("abcdefghijklmno\n", 64), oneM: strings.Repeat("abcdefghijklmno\n", 64<<10)}
	size := int64(len(p.oneK))
	p.page = make([]abi.Resource, Items)
	for i := range p.page {
		n := strconv.Itoa(i)
		p.page[i] = abi.Resource{URI: "bench:///item/" + n, Name: "item " + n, MIMEType: "text/plain", Size: &size}
	}
	return p
}

// Describe implements mcpw.Provider.
func (p *Provider) Describe() abi.Describe {
	return abi.Describe{
		Name: "bench", Version: "1.0.0", Title: "Benchmark provider",
		Description: "Fixed-size resources for measuring host overhead.",
		URISpace:    []abi.URIRoot{{Scheme: "bench"}},
	}
}

// List implements mcpw.Lister: one page of Items resources. It returns the
// same page every time, which is safe: mcpw never modifies a result.
func (p *Provider) List(ctx context.Context, cursor string) (*abi.ListResult, error) {
	if cursor != "" {
		return nil, mcpw.InvalidParams("bench has one page")
	}
	return &abi.ListResult{Resources: p.page}, nil
}

// Read implements mcpw.Reader.
func (p *Provider) Read(ctx context.Context, uri string) (*abi.ReadResult, error) {
	var text string
	switch {
	case uri == "bench:///1k" || strings.HasPrefix(uri, "bench:///item/"):
		text = p.oneK
	case uri == "bench:///1m":
		text = p.oneM
	default:
		return nil, mcpw.NotFound("no such bench resource")
	}
	return &abi.ReadResult{Contents: []abi.Content{mcpw.Text(uri, "text/plain", text)}}, nil
}
