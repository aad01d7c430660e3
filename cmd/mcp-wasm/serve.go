package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/cmd/mcp-wasm/defaultprovider"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/server"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve MCP resources from providers over stdio",
		Description: "With no --module, serves the built-in files provider: every regular file under\n" +
			"--allow-dir (default: the current directory), read-only, as file:/// URIs; hidden\n" +
			"files and .git are left out unless --show-hidden. With --module, serves those\n" +
			"modules; --allow-dir then grants a directory to the single module given.\n" +
			"stdout carries MCP; logs go to stderr. SIGINT/SIGTERM stop reading and let calls\n" +
			"in flight finish (at most twice --timeout).",
		Flags: append(limitFlags(),
			&cli.StringSliceFlag{Name: "module", Aliases: []string{"m"}, Usage: "provider `FILE.wasm` to serve (repeatable)"},
			&cli.BoolFlag{Name: "show-hidden", Usage: "default provider: also expose hidden files and .git"},
			&cli.IntFlag{Name: "page-size", Value: 500, Usage: "resources per resources/list page (1-1000)"},
		),
		Action: serveAction,
	}
}

func serveAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("serve takes no arguments (did you mean --module %s?)", c.Args().First())
	}
	log, err := newLogger(c)
	if err != nil {
		return err
	}
	cfg, err := providerConfig(c)
	if err != nil {
		return err
	}
	rt, err := newRuntime(c, log)
	if err != nil {
		return err
	}
	defer rt.Close(context.WithoutCancel(c.Context))
	providers, err := loadProviders(c, rt, cfg, log)
	defer func() {
		for _, p := range providers {
			_ = p.Close(context.WithoutCancel(c.Context))
		}
	}()
	if err != nil {
		return failure(err)
	}
	sp := make([]server.Provider, len(providers))
	for i, p := range providers {
		sp[i] = p
	}
	srv, err := server.New(server.NewConfig().WithProviders(sp...).WithLogger(log).
		WithPageSize(c.Int("page-size")).
		// The runtime's own deadline fires first and labels the timeout;
		// the server's is the backstop for waits outside the guest.
		WithCallTimeout(cfg.Timeout()+time.Second).
		WithImplementation("mcp-wasm", version))
	if err != nil {
		return failure(err)
	}
	log.Info("serving MCP over stdio", "providers", len(providers))
	if err := srv.ServeStdio(c.Context, c.App.Reader, c.App.Writer); err != nil {
		return failure(err)
	}
	log.Info("stopped")
	return nil
}

// loadProviders loads the modules named by --module, or the built-in files
// provider over --allow-dir (default: the current directory).
func loadProviders(c *cli.Context, rt *runtime.Runtime, cfg runtime.ProviderConfig, log *slog.Logger) ([]*runtime.Provider, error) {
	modules := c.StringSlice("module")
	if len(modules) == 0 {
		p, err := loadDefault(c, rt, cfg, log)
		if err != nil {
			return nil, err
		}
		return []*runtime.Provider{p}, nil
	}
	if len(modules) > 1 && (len(c.StringSlice("allow-dir")) > 0 || len(c.StringSlice("config")) > 0) {
		return nil, errors.New("--allow-dir and --config grant to a single --module; with several modules, per-module grants need a config file")
	}
	var out []*runtime.Provider
	for _, m := range modules {
		p, err := rt.LoadFile(c.Context, m, cfg)
		if err != nil {
			return out, fmt.Errorf("load %s: %w", m, err)
		}
		log.Info("provider loaded", "provider", p.Name(), "module", m, "uri_space", uriSpace(p.Describe()))
		out = append(out, p)
	}
	return out, nil
}

func loadDefault(c *cli.Context, rt *runtime.Runtime, cfg runtime.ProviderConfig, log *slog.Logger) (*runtime.Provider, error) {
	g := cfg.Grants()
	switch len(g.Dirs) {
	case 0:
		cwd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("find the current directory: %w (give --allow-dir)", err)
		}
		g.Dirs = []runtime.DirGrant{{HostPath: cwd}}
	case 1:
	default:
		return nil, errors.New("the built-in files provider serves one directory: give --allow-dir once")
	}
	dir := g.Dirs[0].HostPath
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("--allow-dir %s: not a readable directory: give an existing directory", dir)
	}
	if c.Bool("show-hidden") {
		if g.Config == nil {
			g.Config = map[string]string{}
		}
		g.Config["show_hidden"] = "true"
	}
	p, err := rt.Load(c.Context, "files (built-in)", defaultprovider.Wasm(), cfg.WithGrants(g))
	if err != nil {
		return nil, fmt.Errorf("load the built-in files provider: %w", err)
	}
	hidden := "hidden files and .git are not exposed (--show-hidden exposes them)"
	if c.Bool("show-hidden") {
		hidden = "hidden files and .git ARE exposed (--show-hidden)"
	}
	fmt.Fprintf(c.App.ErrWriter, "mcp-wasm: serving every regular file under %s, read-only, as file:/// URIs; %s\n", dir, hidden)
	log.Info("provider loaded", "provider", p.Name(), "module", "built-in", "dir", dir)
	return p, nil
}

// uriSpace renders a provider's URI roots for logs.
func uriSpace(d abi.Describe) string {
	roots := make([]string, len(d.URISpace))
	for i, r := range d.URISpace {
		roots[i] = r.String()
	}
	return strings.Join(roots, " ")
}
