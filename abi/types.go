package abi

// Describe is the output of mcpw_v1_describe: who the provider is, the URI
// space it owns, what it implements, and what it asks the operator for.
// Requests are requests only: the operator decides what is granted.
type Describe struct {
	Name        string     `json:"name"`
	Version     string     `json:"version"`
	Title       string     `json:"title,omitempty"`
	Description string     `json:"description,omitempty"`
	URISpace    []URIRoot  `json:"uriSpace"`
	Operations  []string   `json:"operations"`
	Requests    *Requests  `json:"requests,omitempty"`
	Cache       *CacheHint `json:"cache,omitempty"`
}

// URIRoot is one root of the URI space a provider owns: every URI with this
// scheme and this authority (none when empty, any when "*"), optionally
// below this path prefix.
type URIRoot struct {
	Scheme     string `json:"scheme"`
	Authority  string `json:"authority,omitempty"`
	PathPrefix string `json:"pathPrefix,omitempty"`
}

// Requests lists the capabilities a provider asks for.
type Requests struct {
	Filesystem []FSRequest     `json:"filesystem,omitempty"`
	Config     []ConfigRequest `json:"config,omitempty"`
	HTTP       []HTTPRequest   `json:"http,omitempty"`
	Clock      bool            `json:"clock,omitempty"`
	Random     bool            `json:"random,omitempty"`
}

// FSRequest asks for a read-only directory mounted at Path inside the guest.
type FSRequest struct {
	Path   string `json:"path"`
	Reason string `json:"reason,omitempty"`
}

// ConfigRequest asks for a configuration value readable through config_get.
type ConfigRequest struct {
	Key      string `json:"key"`
	Secret   bool   `json:"secret,omitempty"`
	Required bool   `json:"required,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// HTTPRequest asks for outbound HTTP to URLs under Prefix.
type HTTPRequest struct {
	Prefix string `json:"prefix"`
	Reason string `json:"reason,omitempty"`
}

// CacheHint says how long a result may be cached and by whom. The host turns
// it into MCP 2026-07-28 ttlMs and cacheScope.
type CacheHint struct {
	TTLMs int64  `json:"ttlMs"`
	Scope string `json:"scope"` // "public" or "private"
}

// Cache scopes.
const (
	ScopePublic  = "public"
	ScopePrivate = "private"
)

// PageRequest is the input of list and templates.
type PageRequest struct {
	Cursor string `json:"cursor,omitempty"`
}

// ListResult is the output of list: one page of resources.
type ListResult struct {
	Resources  []Resource `json:"resources"`
	NextCursor string     `json:"nextCursor,omitempty"`
	Cache      *CacheHint `json:"cache,omitempty"`
}

// Resource is one resource, with the fields of the newest MCP revision.
type Resource struct {
	URI         string       `json:"uri"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Size        *int64       `json:"size,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
}

// Annotations are MCP annotations on resources, templates and contents.
type Annotations struct {
	Audience     []string `json:"audience,omitempty"` // "user", "assistant"
	Priority     *float64 `json:"priority,omitempty"` // 0..1
	LastModified string   `json:"lastModified,omitempty"`
}

// Icon is an MCP icon (2025-11-25). Src is an https: or data: URI.
type Icon struct {
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"` // "light", "dark"
}

// TemplatesResult is the output of templates: one page of URI templates.
type TemplatesResult struct {
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates"`
	NextCursor        string             `json:"nextCursor,omitempty"`
	Cache             *CacheHint         `json:"cache,omitempty"`
}

// ResourceTemplate is an RFC 6570 URI template with MCP metadata.
type ResourceTemplate struct {
	URITemplate string       `json:"uriTemplate"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
}

// ReadRequest is the input of read.
type ReadRequest struct {
	URI string `json:"uri"`
}

// ReadResult is the output of read: one or more contents.
type ReadResult struct {
	Contents []Content  `json:"contents"`
	Cache    *CacheHint `json:"cache,omitempty"`
}

// Content is text or a base64 blob; exactly one of Text and Blob is set.
// Text must be valid UTF-8; Blob must be standard, padded base64.
//
// On the wire a guest may instead give RawText or RawBlob: the index of a
// body it handed over with content_write (ABI §6.3). The host replaces the
// reference with the body before anything else sees the content, so past
// the runtime they are always nil.
type Content struct {
	URI         string       `json:"uri"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Text        *string      `json:"text,omitempty"`
	Blob        *string      `json:"blob,omitempty"`
	RawText     *int         `json:"rawText,omitempty"`
	RawBlob     *int         `json:"rawBlob,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	// Data is a blob's bytes, for a guest SDK that hands them over with
	// content_write instead of Blob's base64. It is never part of the JSON.
	Data []byte `json:"-"`
}

// CompleteRequest is the input of complete.
type CompleteRequest struct {
	Template  string            `json:"template"`
	Argument  CompleteArgument  `json:"argument"`
	Arguments map[string]string `json:"arguments,omitempty"`
}

// CompleteArgument is the argument being completed and its partial value.
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CompleteResult is the output of complete.
type CompleteResult struct {
	Values  []string `json:"values"`
	Total   *int     `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}

// ChangesRequest is the input of changes. Cursor is the value the provider
// returned last time ("" on the first call). Paths, when set, are guest
// paths under granted directories the host saw change since the last call.
type ChangesRequest struct {
	Cursor string   `json:"cursor,omitempty"`
	Paths  []string `json:"paths,omitempty"`
}

// ChangesResult is the output of changes: URIs whose contents changed and
// whether the resource list changed, since the request's cursor.
type ChangesResult struct {
	Cursor      string   `json:"cursor,omitempty"`
	Updated     []string `json:"updated,omitempty"`
	ListChanged bool     `json:"listChanged,omitempty"`
}

// Error is the output of an operation that returned StatusError.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message,omitempty"`
}

// Domain error codes a provider may return.
const (
	CodeNotFound      = "not_found"
	CodeInvalidParams = "invalid_params"
	CodeInternal      = "internal"
)
