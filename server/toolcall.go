package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callTool serves tools/call. A tool the server does not offer is a
// protocol error (-32602, as the tools spec has it for an unknown tool);
// anything that goes wrong in a tool of the view, arguments included, is a
// tool error result (isError) a model can read and act on.
func (s *Server) callTool(ctx context.Context, req *mcp.CallToolRequest) (mcp.Result, error) {
	p := req.Params
	if p == nil {
		return nil, invalidParams("missing params")
	}
	rev := revisionOf(req, p.Meta)
	run, ok := s.toolRunners()[p.Name]
	if !ok {
		return nil, unknownTool(p.Name, s.cfg.resourceTools)
	}
	out := &toolOutcome{tool: p.Name}
	args, err := decodeArgs(p.Arguments, toolArgKinds[p.Name])
	if err == nil {
		if name := missingArg(p.Name, args); name != "" {
			err = fmt.Errorf("missing required argument %q", name)
		}
	}
	if err != nil {
		out.err = invalidParams("%v", err)
		return toolError(rev, out, fmt.Sprintf("invalid arguments: %v: see the tool's inputSchema", err)), nil
	}
	return run(ctx, rev, args, out), nil
}

// toolRunner runs one tool with its checked arguments, recording what the
// audit needs in out.
type toolRunner func(ctx context.Context, rev revision, args toolArgs, out *toolOutcome) *callToolResult

func (s *Server) toolRunners() map[string]toolRunner {
	if !s.cfg.resourceTools {
		return nil
	}
	return map[string]toolRunner{
		toolListResources: s.runListResources,
		toolListTemplates: s.runListTemplates,
		toolRead:          s.runRead,
		toolComplete:      s.runComplete,
	}
}

func unknownTool(name string, view bool) *jsonrpc.Error {
	if !view {
		return invalidParams("unknown tool %q: this server offers no tools (its operator can turn on the resource tools view)", clip(name))
	}
	return invalidParams("unknown tool %q: call tools/list for the tools offered", clip(name))
}

func (s *Server) runListResources(ctx context.Context, rev revision, args toolArgs, out *toolOutcome) *callToolResult {
	q := listQuery{kind: kindResources, provider: args.str("provider"), prefix: args.str("uriPrefix")}
	out.provider, out.uri = q.provider, q.prefix
	size, err := s.toolPageSize(args)
	if err != nil {
		out.err = invalidParams("%v", err)
		return toolError(rev, out, err.Error())
	}
	fetch := func(ctx context.Context, m *backend, cursor string) (fetched[toolResource], error) {
		f, err := s.fetchResources(ctx, m, cursor)
		page := fetched[toolResource]{next: f.next, cache: f.cache}
		for _, r := range f.items {
			if hasURIPrefix(r.URI, q.prefix) {
				page.items = append(page.items, toolResource{Resource: r, Provider: m.name})
			}
		}
		return page, err
	}
	shape := func(r toolResource, rev revision) toolResource {
		r.Resource = resourceFor(r.Resource, rev)
		r.Icons = nil // for interfaces, not models
		return r
	}
	items, _, next, lerr := listPage(ctx, s, rev, args.str("cursor"), q, size, abi.OpList, fetch, shape)
	if lerr != nil {
		return listFailed(rev, out, lerr)
	}
	return toolData(rev, out, resourcesPage{Resources: orEmpty(items), NextCursor: next})
}

func (s *Server) runListTemplates(ctx context.Context, rev revision, args toolArgs, out *toolOutcome) *callToolResult {
	q := listQuery{kind: kindTemplates, provider: args.str("provider")}
	out.provider = q.provider
	size, err := s.toolPageSize(args)
	if err != nil {
		out.err = invalidParams("%v", err)
		return toolError(rev, out, err.Error())
	}
	fetch := func(ctx context.Context, m *backend, cursor string) (fetched[toolTemplate], error) {
		f, err := s.fetchTemplates(ctx, m, cursor)
		page := fetched[toolTemplate]{next: f.next, cache: f.cache}
		for _, t := range f.items {
			page.items = append(page.items, toolTemplate{ResourceTemplate: t, Provider: m.name})
		}
		return page, err
	}
	shape := func(t toolTemplate, rev revision) toolTemplate {
		t.ResourceTemplate = templateFor(t.ResourceTemplate, rev)
		t.Icons = nil
		return t
	}
	items, _, next, lerr := listPage(ctx, s, rev, args.str("cursor"), q, size, abi.OpTemplates, fetch, shape)
	if lerr != nil {
		return listFailed(rev, out, lerr)
	}
	return toolData(rev, out, templatesPage{ResourceTemplates: orEmpty(items), NextCursor: next})
}

// listFailed is the tool error of a listing refused (an invalid cursor, an
// unknown provider); its message is the server's own.
func listFailed(rev revision, out *toolOutcome, err error) *callToolResult {
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		je = internalError()
	}
	out.err = je
	return toolError(rev, out, je.Message)
}

func (s *Server) runRead(ctx context.Context, rev revision, args toolArgs, out *toolOutcome) *callToolResult {
	uri := args.str("uri")
	out.uri = uri
	r, err := s.read(ctx, rev, uri)
	out.provider = r.provider
	if err != nil {
		out.err = err
		if out.provider == "" {
			out.provider = s.providerOf(uri)
		}
		return toolError(rev, out, readFailure(err, uri))
	}
	res := &callToolResult{outcome: out}
	res.setStateless(rev)
	for _, c := range r.contents {
		res.Content = append(res.Content, blockFor(c, rev))
		out.bytes += contentBytes(c.Text, c.Blob)
	}
	return res
}

// readFailure is what a model is told about a failed read: what happened
// and what to do, never a provider's text.
func readFailure(err *jsonrpc.Error, uri string) string {
	switch {
	case err.Message == msgNotFound:
		return fmt.Sprintf("resource not found: %s. Find the URIs that exist with list_resources, or expand a template of list_resource_templates.", clip(uri))
	case err.Code == jsonrpc.CodeInvalidParams:
		return fmt.Sprintf("invalid uri %q: %s. Give an absolute URI as listed, e.g. \"file:///docs/readme.md\".", clip(uri), err.Message)
	}
	return "the provider failed to read the resource: try again later"
}

func (s *Server) runComplete(ctx context.Context, rev revision, args toolArgs, out *toolOutcome) *callToolResult {
	tmpl := args.str("uriTemplate")
	out.uri = tmpl
	p := &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: refResource, URI: tmpl},
		Argument: mcp.CompleteParamsArgument{Name: args.str("argument"), Value: args.str("value")},
	}
	if c := args.strs("context"); len(c) > 0 {
		p.Context = &mcp.CompleteContext{Arguments: c}
	}
	res, err := s.completeParams(ctx, p)
	out.provider = s.templateProviderOf(tmpl)
	if err != nil {
		out.err = err
		msg := err.Message
		if err.Code != jsonrpc.CodeInvalidParams {
			msg = "the provider failed to complete the argument: try again later"
		}
		return toolError(rev, out, msg)
	}
	c := res.Completion
	return toolData(rev, out, completion{Values: c.Values, Total: c.Total, HasMore: c.HasMore})
}

// toolPageSize is the limit argument, default DefaultToolPageSize, both
// bounded by the server's page size.
func (s *Server) toolPageSize(args toolArgs) (int, error) {
	n, ok := args.num("limit")
	if !ok {
		return min(DefaultToolPageSize, s.cfg.pageSize), nil
	}
	if n < 1 || n > s.cfg.pageSize {
		return 0, fmt.Errorf("limit %d is out of range: give 1 to %d", n, s.cfg.pageSize)
	}
	return n, nil
}

func orEmpty[T any](items []T) []T {
	if items == nil {
		return []T{}
	}
	return items
}

// templateProviderOf names the provider that owns the template tmpl, for
// the audit, or "".
func (s *Server) templateProviderOf(tmpl string) string {
	set := s.acquire()
	defer set.release()
	if m := set.templateOwner(tmpl); m != nil {
		return m.name
	}
	return ""
}

// Argument kinds of the tools.
type argKind int

const (
	argString argKind = iota
	argInteger
	argStringMap // an object of strings
)

// toolArgKinds are the arguments each tool takes, by name.
var toolArgKinds = map[string]map[string]argKind{
	toolListResources: {"cursor": argString, "uriPrefix": argString, "provider": argString, "limit": argInteger},
	toolListTemplates: {"cursor": argString, "provider": argString, "limit": argInteger},
	toolRead:          {"uri": argString},
	toolComplete:      {"uriTemplate": argString, "argument": argString, "value": argString, "context": argStringMap},
}

// requiredArgs are the arguments a call must give.
var requiredArgs = map[string][]string{
	toolRead:     {"uri"},
	toolComplete: {"uriTemplate", "argument"},
}

// Bounds of tool arguments, checked before anything else sees them.
const (
	maxArgString = abi.MaxTextField // a cursor (maxCursorText) or a URI (abi.MaxURILength) is shorter
	maxArgMap    = maxContextArgs
)

// toolArgs are checked arguments: strings, integers and string maps.
type toolArgs struct {
	strings map[string]string
	ints    map[string]int
	maps    map[string]map[string]string
	given   map[string]bool
}

func (a toolArgs) str(name string) string             { return a.strings[name] }
func (a toolArgs) strs(name string) map[string]string { return a.maps[name] }

func (a toolArgs) num(name string) (int, bool) {
	n, ok := a.ints[name]
	return n, ok
}

// decodeArgs checks the arguments of a call against kinds: a JSON object
// (absent or null is empty) whose members, by exact name, each given once,
// are known, of their kind and within bounds. A number given for a string
// is taken as written (1 for "1"). Client bytes: it never panics and says
// what is wrong.
func decodeArgs(raw json.RawMessage, kinds map[string]argKind) (toolArgs, error) {
	args := toolArgs{strings: map[string]string{}, ints: map[string]int{}, maps: map[string]map[string]string{}, given: map[string]bool{}}
	if len(raw) == 0 || string(raw) == "null" {
		return args, nil
	}
	if raw[0] != '{' || !json.Valid(raw) { // readMembers reads valid JSON only
		return args, errors.New("arguments must be a JSON object")
	}
	err := readMembers(raw, func(name string, v json.RawMessage) error {
		kind, known := kinds[name]
		switch {
		case !known:
			return fmt.Errorf("unknown argument %q", clip(name))
		case args.given[name]:
			return fmt.Errorf("argument %q given twice", name)
		}
		args.given[name] = true
		val, err := decodeArg(kind, v)
		if err != nil {
			return fmt.Errorf("argument %q %w", name, err)
		}
		switch kind {
		case argString:
			args.strings[name] = val.(string)
		case argInteger:
			args.ints[name] = val.(int)
		case argStringMap:
			args.maps[name] = val.(map[string]string)
		}
		return nil
	})
	return args, err
}

func decodeArg(kind argKind, v json.RawMessage) (any, error) {
	switch kind {
	case argString:
		s, ok := jsonString(v)
		if !ok && isJSONNumber(v) {
			// Models and CLIs send 123 for an id; its text is unambiguous.
			s, ok = string(v), true
		}
		if !ok {
			return nil, errors.New("must be a string")
		}
		if len(s) > maxArgString {
			return nil, fmt.Errorf("is longer than %d bytes", maxArgString)
		}
		return s, nil
	case argInteger:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<31 {
			return nil, errors.New("must be a whole number")
		}
		return int(f), nil
	}
	m := map[string]string{}
	if len(v) == 0 || v[0] != '{' {
		return nil, errors.New("must be an object of strings")
	}
	err := readMembers(v, func(k string, raw json.RawMessage) error {
		s, ok := jsonString(raw)
		switch {
		case !ok:
			return fmt.Errorf("member %q must be a string", clip(k))
		case len(m) >= maxArgMap:
			return fmt.Errorf("has more than %d members", maxArgMap)
		case len(k) > maxArgName || len(s) > maxArgString:
			return errors.New("has a member too long")
		}
		if _, dup := m[k]; dup {
			return fmt.Errorf("member %q given twice", clip(k))
		}
		m[k] = s
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("must be an object of strings: %w", err)
	}
	return m, nil
}

// isJSONNumber reports whether raw is a JSON number.
func isJSONNumber(raw json.RawMessage) bool {
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return false
	}
	var n json.Number
	return json.Unmarshal(raw, &n) == nil
}

// missingArg returns the first required argument of tool that args lack,
// or "".
func missingArg(tool string, args toolArgs) string {
	i := slices.IndexFunc(requiredArgs[tool], func(name string) bool { return !args.given[name] })
	if i < 0 {
		return ""
	}
	return requiredArgs[tool][i]
}
