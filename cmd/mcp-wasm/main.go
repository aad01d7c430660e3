// Command mcp-wasm serves MCP resources from sandboxed WebAssembly provider
// modules, and inspects and calls providers for their authors.
//
// This package is the composition root: it alone reads flags, environment
// and files, and wires runtime (the wazero sandbox) to server (MCP).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
