package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/server"
	"github.com/mcp-wasm/mcp-wasm/server/servertest"
)

// Serve one provider over stdio-style streams, speaking 2026-07-28 (no
// handshake: _meta on every request).
func ExampleServer_ServeStdio() {
	notes := servertest.New("notes", abi.URIRoot{Scheme: "notes"}).
		AddText("notes:///hello", "text/plain", "Hello, world")
	srv, err := server.New(server.NewConfig().
		WithProviders(notes).
		WithImplementation("example", "1.0.0").
		WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		fmt.Println(err)
		return
	}
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"notes:///hello",` + meta + "}}\n")
	if err := srv.ServeStdio(context.Background(), in, os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"example","version":"1.0.0"}},"resultType":"complete","ttlMs":0,"cacheScope":"public","contents":[{"uri":"notes:///hello","mimeType":"text/plain","text":"Hello, world"}]}}
}
