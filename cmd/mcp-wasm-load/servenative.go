package main

import (
	"fmt"
	"log/slog"
	"net"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/guests/conformance/fixtures"
	"github.com/mcp-wasm/mcp-wasm/internal/gctune"
	"github.com/mcp-wasm/mcp-wasm/internal/loadtest"
	"github.com/mcp-wasm/mcp-wasm/internal/metrics"
	"github.com/mcp-wasm/mcp-wasm/server"
)

func serveNativeCommand() *cli.Command {
	return &cli.Command{
		Name: "serve-native",
		Usage: "serve the conformance fixtures compiled natively into the server, over Streamable HTTP, " +
			"configured like `mcp-wasm serve --http ADDR --rate-limit 0 --max-sessions-per-client 0 --audit-log off --log-level warn`",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "http", Value: "127.0.0.1:0", Usage: "loopback `ADDR` to listen on"},
			&cli.StringFlag{Name: "files", Usage: "serve `DIR` with the Go files provider instead (the anchor of the default provider, as serve-files-native over stdio)"},
		},
		Action: serveNativeAction,
	}
}

func serveNativeAction(c *cli.Context) error {
	gctune.Apply() // as mcp-wasm serve does
	log := slog.New(slog.NewTextHandler(c.App.ErrWriter, &slog.HandlerOptions{Level: slog.LevelWarn}))
	set := metrics.NewSet()
	native := loadtest.NewNative(fixtures.Provider{})
	if dir := c.String("files"); dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		if native, err = nativeFiles(abs); err != nil {
			return err
		}
	}
	srv, err := server.New(server.NewConfig().WithProviders(native).
		WithLogger(log).WithAuditLogger(slog.New(slog.DiscardHandler)).
		WithImplementation("mcp-wasm-load", "native").WithObserver(set.Transport("http")))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.String("http"))
	if err != nil {
		return fmt.Errorf("listen: %w: pick another --http address", err)
	}
	cfg := server.NewHTTPConfig().WithRateLimit(0, 0).WithMaxSessionsPerClient(0).
		WithRoute("GET /metrics", set.Handler()).WithMCPMiddleware(set.Transport("http").Wrap)
	fmt.Fprintf(c.App.ErrWriter, "mcp-wasm-load: serving MCP on http://%s%s\n", ln.Addr(), server.MCPPath)
	return srv.ServeStreamable(c.Context, ln, cfg)
}
