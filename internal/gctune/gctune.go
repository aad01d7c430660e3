// Package gctune sets the Go garbage collector's targets for a server
// process: one that allocates a lot per request (decoding, encoding and
// copying messages) and keeps little. It is applied by `mcp-wasm serve`
// and by the native anchor it is measured against, so that the comparison
// stays fair. It never overrides what the environment sets.
package gctune

import (
	"os"
	"runtime/debug"
)

const (
	// Percent is the GOGC the server runs with: the heap may grow to five
	// times what is live before a collection. The Go default (100) makes
	// the MCP layer's garbage (about 150 KB per request in go-sdk) trigger
	// a collection every dozen requests on a small heap; at 400 the
	// collector's share of a request falls by a fifth to a third.
	Percent = 400
	// Limit is the soft memory limit (GOMEMLIMIT) that bounds what the
	// higher GOGC may cost: near it the collector runs as often as it must.
	Limit = 1 << 30
)

// Apply sets GOGC to Percent and the soft memory limit to Limit, each
// unless the environment sets it (GOGC, GOMEMLIMIT), and returns what is
// in effect.
func Apply() (percent int, limit int64) {
	percent, limit = -1, -1
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(Percent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(Limit)
	}
	percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	limit = debug.SetMemoryLimit(-1)
	return percent, limit
}
