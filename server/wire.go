package server

import (
	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The results below replace go-sdk's own result types on the wire, which
// drop "text":"" (required by the schema), size 0 and priority 0, and carry
// cache fields on every revision. abi types already have the MCP JSON shape
// with pointers for those fields. Embedding mcp.ResultBase makes them
// mcp.Result, so go-sdk still adds _meta serverInfo on 2026-07-28.

// stateless holds the fields only 2026-07-28 results carry. TTLMs is a
// pointer because 0 must be sent.
type stateless struct {
	ResultType string `json:"resultType,omitempty"`
	TTLMs      *int64 `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
}

// newStateless returns the cache fields for rev: empty before 2026-07-28.
func newStateless(rev revision, hint abi.CacheHint) stateless {
	if !rev.stateless() {
		return stateless{}
	}
	ttl, scope := max(hint.TTLMs, 0), abi.ScopePublic
	if hint.Scope == abi.ScopePrivate {
		scope = abi.ScopePrivate
	}
	return stateless{ResultType: "complete", TTLMs: &ttl, CacheScope: scope}
}

type listResourcesResult struct {
	mcp.ResultBase
	stateless
	Resources  []abi.Resource `json:"resources"`
	NextCursor string         `json:"nextCursor,omitempty"`
}

type listTemplatesResult struct {
	mcp.ResultBase
	stateless
	ResourceTemplates []abi.ResourceTemplate `json:"resourceTemplates"`
	NextCursor        string                 `json:"nextCursor,omitempty"`
}

type readResult struct {
	mcp.ResultBase
	stateless
	Contents []content `json:"contents"`
}

// content is MCP TextResourceContents or BlobResourceContents: exactly one of
// Text and Blob is non-nil, and an empty text is sent as "text":"".
type content struct {
	URI      string       `json:"uri"`
	MIMEType string       `json:"mimeType,omitempty"`
	Text     *string      `json:"text,omitempty"`
	Blob     *string      `json:"blob,omitempty"`
	Meta     *contentMeta `json:"_meta,omitempty"`
}

// metaAnnotations is the _meta key under which read contents carry the
// provider's annotations (lastModified, audience, priority). No revision's
// ResourceContents has an annotations member, and from 2025-06-18 on
// _meta is where such facts go; the name is ours (reverse DNS of
// mcp-wasm.github.io), as the spec asks for keys outside its own.
const metaAnnotations = "io.github.mcp-wasm/annotations"

// contentMeta is the _meta of read contents.
type contentMeta struct {
	Annotations *abi.Annotations `json:"io.github.mcp-wasm/annotations,omitempty"`
}

// contentFor shapes read contents for rev: the provider's annotations
// travel in _meta, which ResourceContents has from 2025-06-18 on.
func contentFor(c abi.Content, rev revision) content {
	out := content{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob}
	if c.Annotations != nil && rev.hasTitle() {
		out.Meta = &contentMeta{Annotations: c.Annotations}
	}
	return out
}

// resourceFor drops the fields rev does not define.
func resourceFor(r abi.Resource, rev revision) abi.Resource {
	if !rev.hasIcons() {
		r.Icons = nil
	}
	if !rev.hasTitle() {
		r.Title = ""
		r.Annotations = annotationsFor(r.Annotations, rev)
	}
	return r
}

// templateFor drops the fields rev does not define.
func templateFor(t abi.ResourceTemplate, rev revision) abi.ResourceTemplate {
	if !rev.hasIcons() {
		t.Icons = nil
	}
	if !rev.hasTitle() {
		t.Title = ""
		t.Annotations = annotationsFor(t.Annotations, rev)
	}
	return t
}

func annotationsFor(a *abi.Annotations, rev revision) *abi.Annotations {
	if a == nil || rev.hasTitle() || a.LastModified == "" {
		return a
	}
	c := *a
	c.LastModified = ""
	if len(c.Audience) == 0 && c.Priority == nil {
		return nil
	}
	return &c
}
