package server

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// The resource tools view (Config.WithResourceTools) offers the resources
// as four tools, for clients and agent frameworks that only call tools:
// list_resources, list_resource_templates, read_resource and
// complete_resource_argument. Each runs exactly the code of its resource
// method (listPage, read, completeParams): the same providers, routing,
// URI validation, ownership, operator filter, limits and error mapping, and
// the same audit line, which names the tool. The view never changes while
// the server runs, so tools/list is the same every time and the tools
// capability does not declare listChanged.

// Tool names.
const (
	toolListResources = "list_resources"
	toolListTemplates = "list_resource_templates"
	toolRead          = "read_resource"
	toolComplete      = "complete_resource_argument"
)

// DefaultToolPageSize is the number of items a list tool returns when the
// call gives no limit: fewer than a resources/list page, since every item
// lands in a model's context.
const DefaultToolPageSize = 100

// WithResourceTools turns the resource tools view on or off. Defaults to
// off: tools/list is empty and every tools/call names an unknown tool.
func (c Config) WithResourceTools(on bool) Config {
	c.resourceTools = on
	return c
}

// toolDef is a Tool as the wire carries it; title and outputSchema exist
// from 2025-06-18 on (toolsFor).
type toolDef struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *toolAnnotations `json:"annotations,omitempty"`
}

// toolAnnotations are the hints every revision defines: the tools only
// read.
type toolAnnotations struct {
	Title        string `json:"title,omitempty"`
	ReadOnlyHint bool   `json:"readOnlyHint"`
}

// Schemas of tool inputs and outputs (JSON Schema 2020-12, the default
// dialect of MCP tools).
const (
	schemaCursor = `"cursor":{"type":"string","description":"The nextCursor of the previous page, to get the next one. Omit it for the first page; a cursor works only with the same provider and uriPrefix."}`
	schemaLimit  = `"limit":{"type":"integer","minimum":1,"maximum":%d,"description":"Most items to return in this page (default %d)."}`

	schemaProvider = `"provider":{"type":"string","description":"Only the items of this provider, as named in the provider member of listed items."}`

	schemaAnnotations = `"annotations":{"type":"object","description":"audience (user, assistant), priority (0 to 1), lastModified (ISO 8601).","properties":{"audience":{"type":"array","items":{"type":"string","enum":["user","assistant"]}},"priority":{"type":"number","minimum":0,"maximum":1},"lastModified":{"type":"string"}}}`

	outListResources = `{"type":"object","properties":{` +
		`"resources":{"type":"array","items":{"type":"object","properties":{` +
		`"uri":{"type":"string","description":"Pass it to read_resource."},` +
		`"name":{"type":"string"},"title":{"type":"string"},"description":{"type":"string"},"mimeType":{"type":"string"},` +
		`"size":{"type":"integer","minimum":0,"description":"Bytes of the raw content."},` + schemaAnnotations + `,` +
		`"provider":{"type":"string","description":"The provider serving it."}},"required":["uri","name","provider"]}},` +
		`"nextCursor":{"type":"string","description":"Present when more resources follow: pass it as cursor."}},"required":["resources"]}`

	outListTemplates = `{"type":"object","properties":{` +
		`"resourceTemplates":{"type":"array","items":{"type":"object","properties":{` +
		`"uriTemplate":{"type":"string","description":"An RFC 6570 URI template: expand it into a URI for read_resource."},` +
		`"name":{"type":"string"},"title":{"type":"string"},"description":{"type":"string"},"mimeType":{"type":"string"},` + schemaAnnotations + `,` +
		`"provider":{"type":"string","description":"The provider serving it."}},"required":["uriTemplate","name","provider"]}},` +
		`"nextCursor":{"type":"string","description":"Present when more templates follow: pass it as cursor."}},"required":["resourceTemplates"]}`

	outComplete = `{"type":"object","properties":{` +
		`"values":{"type":"array","items":{"type":"string"},"maxItems":100,"description":"Values for the argument, best first."},` +
		`"total":{"type":"integer","minimum":0,"description":"How many values there are in all, when known."},` +
		`"hasMore":{"type":"boolean","description":"More values exist than were returned: type more of the value."}},"required":["values"]}`
)

// resourceTools returns the tool definitions of the view for a server
// whose list pages hold at most pageSize items.
func resourceTools(pageSize int) []toolDef {
	limit := fmt.Sprintf(schemaLimit, pageSize, min(DefaultToolPageSize, pageSize))
	readOnly := func(title string) *toolAnnotations { return &toolAnnotations{Title: title, ReadOnlyHint: true} }
	return []toolDef{
		{
			Name:  toolListResources,
			Title: "List resources",
			Description: "List the resources this server can read (files, documents, records, ...), each with its URI, name, " +
				"MIME type and size. Results come in pages: when nextCursor is present, call again with it as cursor for the next page. " +
				"Narrow the list with uriPrefix (e.g. \"file:///docs/\") or provider. Read a resource with read_resource and its uri. " +
				"Resources that are not listed may still be readable through a template (list_resource_templates).",
			InputSchema: json.RawMessage(`{"type":"object","properties":{` + schemaCursor + `,` +
				`"uriPrefix":{"type":"string","description":"Only resources whose URI starts with this prefix, e.g. \"file:///docs/\"."},` +
				schemaProvider + `,` + limit + `},"additionalProperties":false}`),
			OutputSchema: json.RawMessage(outListResources),
			Annotations:  readOnly("List resources"),
		},
		{
			Name:  toolListTemplates,
			Title: "List resource templates",
			Description: "List URI templates (RFC 6570) for resources that are read by URI without being listed, such as " +
				"\"notes:///{id}\" or \"file:///{+path}\". Expand a template by replacing each {name} with a value (percent-encoded; " +
				"{+name} may hold '/'), then read the URI with read_resource. complete_resource_argument suggests values for a {name}. " +
				"Results come in pages: when nextCursor is present, call again with it as cursor.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{` + schemaCursor + `,` + schemaProvider + `,` + limit +
				`},"additionalProperties":false}`),
			OutputSchema: json.RawMessage(outListTemplates),
			Annotations:  readOnly("List resource templates"),
		},
		{
			Name:  toolRead,
			Title: "Read a resource",
			Description: "Read the resource at a URI, as listed by list_resources or expanded from a template of " +
				"list_resource_templates. Text comes back as text; images and audio as image or audio content; other binary data " +
				"as an embedded resource (base64). A URI that does not exist is an error result saying so.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"uri":{"type":"string","description":` +
				`"The absolute URI of the resource, e.g. \"file:///docs/readme.md\"."}},"required":["uri"],"additionalProperties":false}`),
			Annotations: readOnly("Read a resource"),
		},
		{
			Name:  toolComplete,
			Title: "Complete a template argument",
			Description: "Suggest values for one {name} of a resource template from list_resource_templates, given what has been " +
				"typed so far (value), e.g. the ids or paths that exist. Pass the values already chosen for other names of the " +
				"template as context.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"uriTemplate":{"type":"string","description":"The uriTemplate exactly as listed, e.g. \"notes:///{id}\"."},` +
				`"argument":{"type":"string","description":"The name of the template variable to complete, e.g. \"id\"."},` +
				`"value":{"type":"string","description":"The start of the value typed so far (default: empty, for any value)."},` +
				`"context":{"type":"object","additionalProperties":{"type":"string"},"description":"Values already chosen for other variables of the template, by name."}` +
				`},"required":["uriTemplate","argument"],"additionalProperties":false}`),
			OutputSchema: json.RawMessage(outComplete),
			Annotations:  readOnly("Complete a template argument"),
		},
	}
}

// toolsFor shapes the tool definitions for rev: title and outputSchema
// only from 2025-06-18 on.
func toolsFor(defs []toolDef, rev revision) []toolDef {
	out := make([]toolDef, len(defs))
	for i, d := range defs {
		if !rev.hasTitle() {
			d.Title, d.OutputSchema = "", nil
		}
		out[i] = d
	}
	return out
}

// toolResource is a listed resource in the tools view: the resource, and
// the provider that serves it (for the provider argument).
type toolResource struct {
	abi.Resource
	Provider string `json:"provider"`
}

// toolTemplate is a listed template in the tools view.
type toolTemplate struct {
	abi.ResourceTemplate
	Provider string `json:"provider"`
}

// resourcesPage and templatesPage are the structured output of the list
// tools.
type resourcesPage struct {
	Resources  []toolResource `json:"resources"`
	NextCursor string         `json:"nextCursor,omitempty"`
}

type templatesPage struct {
	ResourceTemplates []toolTemplate `json:"resourceTemplates"`
	NextCursor        string         `json:"nextCursor,omitempty"`
}

// completion is the structured output of complete_resource_argument.
type completion struct {
	Values  []string `json:"values"`
	Total   int      `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}
