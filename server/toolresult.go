package server

import (
	"encoding/json"
	"mime"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callToolResult is a CallToolResult as the wire carries it: resultType on
// 2026-07-28, structuredContent from 2025-06-18 on. Like the other results
// it replaces go-sdk's type, whose content types drop what they must not.
type callToolResult struct {
	mcp.ResultBase
	ResultType        string `json:"resultType,omitempty"`
	Content           []any  `json:"content"`
	StructuredContent any    `json:"structuredContent,omitempty"`
	IsError           bool   `json:"isError,omitempty"`

	outcome *toolOutcome // for the audit line and the metrics; not sent
}

// toolOutcome is what a tool call did, as the audit line and the metrics
// report it: the tool, the URI (a read's, a template, a list's prefix) and
// provider it concerned, the error the same failure is on the resource
// method (nil if none), and the content bytes it served.
type toolOutcome struct {
	tool, uri, provider string
	err                 *jsonrpc.Error
	bytes               int64
}

func (r *callToolResult) setStateless(rev revision) {
	if rev.stateless() {
		r.ResultType = "complete"
	}
	if r.Content == nil {
		r.Content = []any{}
	}
}

// toolData is the result of a tool whose output is data: its JSON as text
// (every revision, and what clients without structured output read), and
// the same value as structuredContent where the revision has it.
func toolData(rev revision, out *toolOutcome, v any) *callToolResult {
	b, err := json.Marshal(v)
	if err != nil {
		out.err = internalError()
		return toolError(rev, out, "the result could not be encoded")
	}
	r := &callToolResult{outcome: out, Content: []any{textBlock{Type: "text", Text: string(b)}}}
	if rev.hasTitle() {
		r.StructuredContent = v
	}
	r.setStateless(rev)
	return r
}

// toolError is a tool error result carrying msg, which is the server's own
// text (never a provider's).
func toolError(rev revision, out *toolOutcome, msg string) *callToolResult {
	r := &callToolResult{outcome: out, IsError: true, Content: []any{textBlock{Type: "text", Text: msg}}}
	r.setStateless(rev)
	return r
}

// Content blocks of tool results (TextContent, ImageContent, AudioContent,
// EmbeddedResource), with annotations shaped for the revision.
type textBlock struct {
	Type        string           `json:"type"`
	Text        string           `json:"text"`
	Annotations *abi.Annotations `json:"annotations,omitempty"`
}

type mediaBlock struct {
	Type        string           `json:"type"` // "image" or "audio"
	Data        string           `json:"data"`
	MIMEType    string           `json:"mimeType"`
	Annotations *abi.Annotations `json:"annotations,omitempty"`
}

type resourceBlock struct {
	Type        string           `json:"type"` // "resource"
	Resource    content          `json:"resource"`
	Annotations *abi.Annotations `json:"annotations,omitempty"`
}

// blockFor is the tool content block of one read content: text as text;
// binary as an image or audio block when its MIME type says it is one,
// else as an embedded resource holding the blob with its URI and MIME
// type. No content is dropped.
func blockFor(c abi.Content, rev revision) any {
	a := annotationsFor(c.Annotations, rev)
	if c.Text != nil {
		return textBlock{Type: "text", Text: *c.Text, Annotations: a}
	}
	switch mediaType(c.MIMEType) {
	case "image":
		return mediaBlock{Type: "image", Data: *c.Blob, MIMEType: c.MIMEType, Annotations: a}
	case "audio":
		return mediaBlock{Type: "audio", Data: *c.Blob, MIMEType: c.MIMEType, Annotations: a}
	}
	return resourceBlock{Type: "resource", Resource: content{URI: c.URI, MIMEType: c.MIMEType, Blob: c.Blob}, Annotations: a}
}

// mediaType is the top-level type of a MIME type ("image" of
// "image/png; q=1"), or "".
func mediaType(mimeType string) string {
	mt, _, err := mime.ParseMediaType(mimeType)
	if err != nil {
		return ""
	}
	top, _, _ := strings.Cut(mt, "/")
	return top
}

// contentBytes is the size of a content: text bytes, or decoded blob bytes.
func contentBytes(text, blob *string) int64 {
	switch {
	case text != nil:
		return int64(len(*text))
	case blob != nil:
		b := *blob
		return int64(len(b)/4*3 - strings.Count(b[max(0, len(b)-2):], "="))
	}
	return 0
}
