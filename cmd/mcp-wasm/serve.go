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
	"github.com/mcp-wasm/mcp-wasm/internal/metrics"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/server"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve MCP resources from providers over stdio, or Streamable HTTP with --http",
		Description: "With no --module, serves the built-in files provider: every regular file under\n" +
			"--allow-dir (default: the current directory), read-only, as file:/// URIs; hidden\n" +
			"files and .git are left out unless --show-hidden. With --module, serves those\n" +
			"modules; --allow-dir then grants a directory to the single module given.\n" +
			"With --config FILE, serves the providers the file declares, with their grants and\n" +
			"limits, and reloads them on SIGHUP or when the file or a module changes.\n" +
			"stdout carries MCP; logs go to stderr. SIGINT/SIGTERM stop reading, end open\n" +
			"subscriptions/listen requests with their final result and let calls in flight\n" +
			"finish (at most --request-timeout). --resource-tools also offers the resources as\n" +
			"tools, for clients that only call tools (README \"Resources as tools\").\n" +
			"With --http ADDR, serves MCP at http://ADDR/mcp instead (both protocol eras on one\n" +
			"endpoint), /healthz and /readyz; see README \"Serve over HTTP\". On SIGTERM it stops\n" +
			"accepting, ends event streams and lets requests in flight finish (at most twice\n" +
			"--timeout, or --request-timeout if longer). It prints \"mcp-wasm: serving MCP on URL\" on stderr once listening.",
		Flags: append(append(limitFlags(),
			&cli.StringSliceFlag{Name: "module", Aliases: []string{"m"}, Usage: "provider `FILE.wasm`, or oci://REGISTRY/REPOSITORY:TAG[@sha256:DIGEST], to serve (repeatable)"},
			&cli.BoolFlag{Name: "show-hidden", Usage: "default provider: also expose hidden files and .git"},
			&cli.IntFlag{Name: "page-size", Value: 500, Usage: "resources per resources/list page (1-1000)"},
			&cli.DurationFlag{Name: "request-timeout", Value: server.DefaultRequestTimeout, DefaultText: "30s, or --timeout if longer",
				Usage: "deadline of one client request, all its provider calls included (a list page returns what it has); at least --timeout"},
			&cli.BoolFlag{Name: "resource-tools", Usage: "also offer the resources as tools (list_resources, list_resource_templates, read_resource, complete_resource_argument), for clients that only call tools"},
			configFlag(),
		), httpFlags()...),
		Action: serveAction,
	}
}

func serveAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("serve takes no arguments (did you mean --module %s?)", c.Args().First())
	}
	cc, err := configFromFlag(c)
	if err != nil {
		return err
	}
	log, err := newLogger(c)
	if err != nil {
		return err
	}
	tr, err := transportFromFlags(c, log) // http.go
	defer func() { _ = tr.close() }()
	if err != nil {
		return err
	}
	cfg, err := providerConfig(c)
	if err != nil {
		return err
	}
	set := metrics.NewSet() // metrics.go: served at /metrics with --http
	rt, err := newRuntime(c, log, set)
	if err != nil {
		return err
	}
	defer rt.Close(context.WithoutCancel(c.Context))
	ml, err := newModuleLoader(c, log, cc.insecureRegistries()...) // modules.go
	if err != nil {
		return err
	}
	src, err := openSource(c, rt, ml, cfg, cc, log)
	defer src.close(c.Context)
	if err != nil {
		return failure(err)
	}
	watchCtx, stopWatch := context.WithCancel(c.Context)
	defer stopWatch() // before src.close
	providers := src.providers
	scfg := server.NewConfig()
	if c.IsSet("request-timeout") {
		scfg = scfg.WithRequestTimeout(c.Duration("request-timeout"))
	}
	srv, err := server.New(scfg.WithProviders(providers...).WithLogger(log).
		WithPageSize(c.Int("page-size")).WithResourceTools(c.Bool("resource-tools")).
		// The runtime's own deadline fires first and labels the timeout;
		// the server's is the backstop for waits outside the guest.
		WithCallTimeout(src.timeout+time.Second).
		WithImplementation("mcp-wasm", version).
		WithAuditLogger(tr.audit).WithCursorKey(tr.cursorKey).
		WithObserver(set.Transport(tr.name())))
	if err != nil {
		return failure(err)
	}
	tr.instrument(set, srv)
	src.watch(watchCtx, srv)
	feeds := startChangeFeeds(watchCtx, srv, log) // changes.go: live resources
	defer feeds.close()
	if err := tr.serve(c, srv, log, len(providers), max(2*src.timeout, srv.RequestTimeout())); err != nil {
		return failure(err)
	}
	log.Info("stopped")
	return nil
}

// loadProviders loads the modules named by --module, or the built-in files
// provider over --allow-dir (default: the current directory).
func loadProviders(c *cli.Context, rt *runtime.Runtime, ml *moduleLoader, cfg runtime.ProviderConfig, log *slog.Logger) ([]*runtime.Provider, error) {
	modules := c.StringSlice("module")
	if len(modules) == 0 {
		p, err := loadDefault(c, rt, cfg, log)
		if err != nil {
			return nil, err
		}
		return []*runtime.Provider{p}, nil
	}
	if set := grantFlagsSet(c); len(modules) > 1 && len(set) > 0 {
		return nil, fmt.Errorf("%s grant to a single --module; with several modules, give each its grants in a config file (--config FILE)", strings.Join(set, ", "))
	}
	maxSize, err := moduleSizeFlag(c)
	if err != nil {
		return nil, err
	}
	var out []*runtime.Provider
	for _, m := range modules {
		p, mod, err := ml.load(c.Context, rt, m, "", nil, maxSize, cfg) // modules.go
		if err != nil {
			return out, fmt.Errorf("load %s: %w", m, err)
		}
		log.Info("provider loaded", "provider", p.Name(), "module", mod.Source, "sha256", mod.Digest, "uri_space", uriSpace(p.Describe()))
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
