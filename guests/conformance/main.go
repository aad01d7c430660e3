// Command conformance is the provider the official MCP conformance suite
// (@modelcontextprotocol/conformance) is run against: the test:// fixtures
// of its resource scenarios (static text, a static PNG, the
// test://template/{id}/data template and the watched resource), with the
// logic in guests/conformance/fixtures.
//
// It needs no grants: it reads no files, config, network or clock.
package main

import (
	"github.com/mcp-wasm/mcp-wasm/guests/conformance/fixtures"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

func init() { mcpw.Register(fixtures.Provider{}) }

// main is never run: the module is built as a reactor (-buildmode=c-shared).
func main() {}
