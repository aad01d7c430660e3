// Command mcp-wasm-load is the load test of mcp-wasm: `run` drives N
// concurrent clients reading resources from a Streamable HTTP endpoint and
// reports throughput, latency percentiles, errors and the server's peak
// RSS; `serve-native` serves the conformance fixtures compiled natively
// into the server, the baseline `mcp-wasm serve --http` with
// conformance.wasm is compared against. scripts/loadtest.sh runs both.
// `files` measures the default provider against the Go files provider
// compiled natively into the same server (`serve-files-native`), side by
// side over stdio: scripts/files-bench.sh.
//
// It is a development tool, not shipped: it targets loopback only and
// stops by itself.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
