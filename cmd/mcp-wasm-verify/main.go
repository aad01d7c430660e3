// Command mcp-wasm-verify verifies Sigstore signatures of provider modules
// for mcp-wasm, offline, with sigstore-go (package
// internal/sigpolicy/offline). mcp-wasm runs it, found beside its own
// executable or on PATH, when a signature policy needs it: once to load a
// policy's keys and trusted root, once per module to verify its bundles.
// It reads one JSON request on stdin and writes one JSON answer on
// stdout; it reads no other file than the keys and trusted root the
// request names, and reaches no network.
//
// It is a program of its own so that mcp-wasm links none of sigstore-go's
// dependencies (an online Rekor client, OpenTelemetry, go-openapi, gRPC):
// their package initializers alone allocate megabytes that the collector
// would mark on every cycle of a server that verifies nothing. See
// RATIONALE.md, "Why is signature verification a separate program?".
package main

import (
	"fmt"
	"os"

	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy"
	_ "github.com/mcp-wasm/mcp-wasm/internal/sigpolicy/offline" // the engine
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintf(os.Stderr, "%s takes no arguments: mcp-wasm runs it, with a request on stdin\n", sigpolicy.VerifierName)
		os.Exit(2)
	}
	if err := sigpolicy.Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", sigpolicy.VerifierName, err)
		os.Exit(1)
	}
}
