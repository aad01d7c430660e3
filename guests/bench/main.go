// Command bench is the benchmark provider (see benchprov) built as a Go
// guest: it measures the host's per-call overhead on a Go guest.
package main

import (
	"github.com/mcp-wasm/mcp-wasm/guests/bench/benchprov"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

func init() { mcpw.Register(benchprov.New()) }

func main() {}
