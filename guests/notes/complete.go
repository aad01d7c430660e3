package main

import (
	"context"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// Complete completes the id and tag template arguments by prefix.
func (n *notes) Complete(ctx context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error) {
	var pool []string
	switch req.Argument.Name {
	case "id":
		pool = make([]string, len(n.sorted))
		for i := range n.sorted {
			pool[i] = n.sorted[i].ID
		}
	case "tag":
		pool = n.tags
	default:
		return nil, mcpw.InvalidParams("no argument %q: the notes templates take id and tag", req.Argument.Name)
	}
	return completeFrom(pool, req.Argument.Value), nil
}

// completeFrom returns the sorted values of pool starting with prefix, at
// most abi.MaxCompletionValues of them, with the total.
func completeFrom(pool []string, prefix string) *abi.CompleteResult {
	values := []string{}
	total := 0
	for _, v := range pool {
		if !strings.HasPrefix(v, prefix) {
			continue
		}
		total++
		if len(values) < abi.MaxCompletionValues {
			values = append(values, v)
		}
	}
	return &abi.CompleteResult{Values: values, Total: new(total), HasMore: total > len(values)}
}
