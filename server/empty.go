package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// mcp-wasm serves resources, and declares the tools and prompts
// capabilities: 2026-07-28 requires every list to carry cache hints and the
// declared capabilities to match the methods answered, and clients (and the
// official conformance suite) probe tools/list and prompts/list on connect.
// The prompt list is always empty (prompts/get answers -32601); the tool
// list is empty unless the resource tools view is on (tools.go), and
// tools/call of a tool not offered answers -32602, unknown tool.

type listToolsResult struct {
	mcp.ResultBase
	stateless
	Tools []toolDef `json:"tools"`
}

type listPromptsResult struct {
	mcp.ResultBase
	stateless
	Prompts []struct{} `json:"prompts"`
}

// emptyListCache: the lists never change while the server runs, but a
// client must still re-ask now and then, so a page is cacheable for a
// minute.
var emptyListCache = abi.CacheHint{TTLMs: 60_000, Scope: abi.ScopePublic}

func (s *Server) listTools(_ context.Context, req *mcp.ListToolsRequest) (mcp.Result, error) {
	var meta map[string]any
	if req.Params != nil {
		meta = req.Params.Meta
	}
	rev := revisionOf(req, meta)
	tools := []toolDef{}
	if s.cfg.resourceTools {
		tools = toolsFor(resourceTools(s.cfg.pageSize), rev)
	}
	return &listToolsResult{stateless: newStateless(rev, emptyListCache), Tools: tools}, nil
}

func (s *Server) listPrompts(_ context.Context, req *mcp.ListPromptsRequest) (mcp.Result, error) {
	var meta map[string]any
	if req.Params != nil {
		meta = req.Params.Meta
	}
	return &listPromptsResult{stateless: newStateless(revisionOf(req, meta), emptyListCache), Prompts: []struct{}{}}, nil
}
