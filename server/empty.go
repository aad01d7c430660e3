package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// mcp-wasm serves resources only, but declares the tools and prompts
// capabilities and answers their lists with empty pages: 2026-07-28 requires
// every list to carry cache hints and the declared capabilities to match
// the methods answered, and clients (and the official conformance suite)
// probe tools/list and prompts/list on connect. No tool or prompt exists,
// so tools/call and prompts/get still answer -32601.

type listToolsResult struct {
	mcp.ResultBase
	stateless
	Tools []struct{} `json:"tools"`
}

type listPromptsResult struct {
	mcp.ResultBase
	stateless
	Prompts []struct{} `json:"prompts"`
}

// emptyListCache: there is nothing to change, but a client must still
// re-ask after list_changed, so the page is cacheable for a minute.
var emptyListCache = abi.CacheHint{TTLMs: 60_000, Scope: abi.ScopePublic}

func (s *Server) listTools(_ context.Context, req *mcp.ListToolsRequest) (mcp.Result, error) {
	var meta map[string]any
	if req.Params != nil {
		meta = req.Params.Meta
	}
	return &listToolsResult{stateless: newStateless(revisionOf(req, meta), emptyListCache), Tools: []struct{}{}}, nil
}

func (s *Server) listPrompts(_ context.Context, req *mcp.ListPromptsRequest) (mcp.Result, error) {
	var meta map[string]any
	if req.Params != nil {
		meta = req.Params.Meta
	}
	return &listPromptsResult{stateless: newStateless(revisionOf(req, meta), emptyListCache), Prompts: []struct{}{}}, nil
}
