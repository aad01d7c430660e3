//go:build !wasip1

package mcpw

import "github.com/mcp-wasm/mcp-wasm/abi"

// platformFetch outside wasm has no host import; tests use a Fetcher.
func platformFetch(abi.FetchRequest) (*abi.FetchResponse, error) { return nil, ErrNoHTTP }
