package main

import (
	"io"
	"log/slog"

	"github.com/mcp-wasm/mcp-wasm/internal/modsource"
	"github.com/mcp-wasm/mcp-wasm/internal/oci"
)

// fileLoader loads module files only (no module store), for tests of the
// config and reload logic.
func fileLoader() *moduleLoader {
	return &moduleLoader{res: modsource.New(nil, oci.NewClient(oci.Options{})), log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}
