// Command mcp-wasm serves MCP resources from sandboxed WebAssembly provider
// modules, and inspects and calls providers for their authors.
//
// This package is the composition root: it reads flags, signals and the
// environment, turns flags or a config file into a config.Config, loads it
// through package served (which runs the modules in package runtime, the
// wazero sandbox) and wires the served set to package server (MCP).
package main

import (
	"context"
	"os"

	"github.com/mcp-wasm/mcp-wasm/runtime"
)

func main() {
	runtime.CompileWorkerMain() // when started as a compile worker, this process is only that
	// SIGINT/SIGTERM end ctx; the process then exits within the shutdown
	// bound whatever still runs, and at once on a second signal (shutdown.go).
	ctx, sd := startShutdown(context.Background(), os.Stderr, os.Exit)
	code := run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	sd.stop()
	os.Exit(code)
}
