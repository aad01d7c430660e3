package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
)

// run is main without os.Exit, so tests can drive the whole CLI.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := &cli.App{
		Name:            "mcp-wasm-load",
		Usage:           "load-test mcp-wasm serve --http on loopback",
		Writer:          stdout,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		Commands:        []*cli.Command{runCommand(), serveNativeCommand(), tableCommand(), filesCommand(), serveFilesNativeCommand()},
	}
	if err := app.RunContext(ctx, args); err != nil {
		fmt.Fprintln(stderr, "mcp-wasm-load:", err)
		return 1
	}
	return 0
}
