package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/internal/gctune"
	"github.com/mcp-wasm/mcp-wasm/internal/metrics"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/served"
	"github.com/mcp-wasm/mcp-wasm/server"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve MCP resources from providers over stdio, or Streamable HTTP with --http",
		Description: "With no --module, serves the built-in files provider: every regular file under\n" +
			"each --allow-dir (repeatable; default: the current directory), read-only, named by\n" +
			"its real file:// URI (file:///home/me/notes/todo.md); hidden files and .git are left\n" +
			"out unless --show-hidden. Grants may not overlap. The current directory is refused\n" +
			"when it is /, your home directory or one holding it, /home, /Users, /root or the temp\n" +
			"directory: give --allow-dir (an explicit one of those is served, with a warning).\n" +
			"--grant-roots (stdio) serves the client's file:// roots instead, as they change.\n" +
			"--skills-dir DIR also serves the Agent Skills in DIR as skill:// resources, with the\n" +
			"Skills extension's methods (docs/skills.md); alone, it serves only them.\n" +
			"With --module, serves those modules; --allow-dir then grants a directory to the\n" +
			"single module given, which sees it at its real path (a config file's\n" +
			"grants.dirs[].guest maps it elsewhere).\n" +
			"With --config FILE, serves the providers the file declares, with their grants and\n" +
			"limits, and reloads them on SIGHUP or when the file or a module changes (once the\n" +
			"changes settle, and at most 6s after the first while they go on); a reload that\n" +
			"fails (a bad module, a broken pin or signature) keeps the running providers.\n" +
			"A module may be an oci:// reference, pulled into the module store (DIR/modules of\n" +
			"--cache-dir); the signature flags refuse a module not pinned or not signed as they say.\n" +
			"stdout carries MCP; logs go to stderr. SIGINT/SIGTERM stop reading, end open\n" +
			"subscriptions/listen requests with their final result and let calls in flight\n" +
			"finish; the process exits at most --shutdown-timeout (10s) after the signal, or\n" +
			"after the end of stdin, whatever still runs (status 1 then); a second signal exits\n" +
			"at once. --resource-tools also offers the resources as tools, for clients that only\n" +
			"call tools (docs/resource-tools.md).\n" +
			"With --http ADDR, serves MCP at http://ADDR/mcp instead (both protocol eras on one\n" +
			"endpoint), /healthz and /readyz; see docs/http.md. On SIGTERM it stops\n" +
			"accepting, ends event streams and lets requests in flight finish (at most twice\n" +
			"--timeout, or --request-timeout if longer, within --shutdown-timeout). It prints \"mcp-wasm: serving MCP on URL\" on stderr once listening.",
		Flags: append(append(limitFlags(), idleTimeoutFlag(),
			&cli.StringSliceFlag{Name: "module", Aliases: []string{"m"}, Usage: "provider `FILE.wasm`, or oci://REGISTRY/REPOSITORY:TAG[@sha256:DIGEST], to serve (repeatable)"},
			&cli.BoolFlag{Name: "show-hidden", Usage: "default provider: also expose hidden files and .git"},
			&cli.IntFlag{Name: "page-size", Value: server.DefaultPageSize, Usage: fmt.Sprintf("resources per resources/list page (1-%d); clients that stop at 64 pages list 64 times this", server.MaxPageSize)},
			&cli.DurationFlag{Name: "request-timeout", Value: server.DefaultRequestTimeout, DefaultText: "30s, or --timeout if longer",
				Usage: "deadline of one client request, all its provider calls included (a list page returns what it has); at least --timeout"},
			&cli.IntFlag{Name: "max-concurrency", DefaultText: "twice the CPUs, at least 4",
				Usage: "guest calls and instantiations in flight across all providers (bounds host stack that deep guest recursion uses outside the memory cap)"},
			&cli.IntFlag{Name: "max-subscriptions", Value: server.DefaultMaxSubscriptions,
				Usage: "resources one session may subscribe to, and subscriptions/listen requests it may hold open"},
			&cli.IntFlag{Name: "max-subscriptions-per-client", Value: server.DefaultMaxSubscriptionsPerClient,
				Usage: "resources one client (token subject, or address when anonymous) may subscribe to across its sessions"},
			&cli.IntFlag{Name: "max-subscriptions-total", Value: server.DefaultMaxSubscriptionsTotal,
				Usage: "resources all clients together may subscribe to (each costs about 360 bytes plus its URI)"},
			&cli.IntFlag{Name: "max-listens-per-client", Value: server.DefaultMaxListensPerClient,
				Usage: "subscriptions/listen requests one client may hold open across its sessions"},
			&cli.IntFlag{Name: "max-listens", Value: server.DefaultMaxListens,
				Usage: "subscriptions/listen requests all clients together may hold open (over HTTP each costs about 60 KiB plus socket buffers)"},
			&cli.BoolFlag{Name: "resource-tools", Usage: "also offer the resources as tools (list_resources, list_resource_templates, read_resource, complete_resource_argument), for clients that only call tools"},
			&cli.DurationFlag{Name: "shutdown-timeout", Value: defaultShutdownTimeout,
				Usage: "after SIGINT/SIGTERM (or the end of stdin), exit within this long whatever still runs: calls in flight get all of it but 2s (half of it if shorter) to finish; a second signal exits at once"},
			&cli.DurationFlag{Name: "page-time", Value: server.DefaultPageTime,
				Usage: "time one list page may spend calling providers before it returns what it has, with a cursor to the rest"},
			&cli.StringFlag{Name: "read-cache", Value: "64MiB", Usage: "`SIZE` of the host's read cache, shared by all providers (0: off): a read is kept only when its cache hint allows, for at most its ttl, and served only while every file it looked up is unchanged"},
			&cli.StringFlag{Name: "list-cache", Value: "32MiB", Usage: "`SIZE` of the host's list cache, shared by all providers (0: off): a list page is kept only when its cache hint allows (public, ttl above 0), until the provider's change feed reports a change, or for at most its ttl when no feed tracks the provider (docs/lists.md)"},
			configFlag(), grantRootsFlag(), allowFlag(), skillsDirFlag(),
		), httpFlags()...),
		Action: serveAction,
	}
}

func serveAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("serve takes no arguments (did you mean --module %s?)", c.Args().First())
	}
	if err := checkGrantRoots(c); err != nil { // roots.go
		return err
	}
	cfg, err := configFromFile(c) // configserve.go
	if err != nil {
		return err
	}
	log, err := newLogger(c)
	if err != nil {
		return err
	}
	bound := c.Duration("shutdown-timeout")
	if bound <= 0 {
		return usageError("--shutdown-timeout %s: give a positive duration, such as 10s", bound)
	}
	shutdownFrom(c.Context).setBound(bound) // shutdown.go
	drain := max(bound/2, bound-2*time.Second)
	gc := gctune.Apply() // a server's garbage and its container's limit: see internal/gctune
	log.Info("garbage collector", "gogc", gc.Percent, "gomemlimit", gc.Limit, "from", gc.Source, "cgroup_limit", gc.Cgroup)
	tr, err := transportFromFlags(c, log) // http.go
	defer func() { _ = tr.close() }()
	if err != nil {
		return err
	}
	if cfg == nil {
		if cfg, err = configFromFlags(c); err != nil {
			return err
		}
		warnBroadGrants(log, cfg) // servedirs.go
	}
	var roots *rootGrants // --grant-roots: roots.go
	if c.Bool("grant-roots") {
		roots = newRootGrants(c, cfg, log)
	}
	skills, err := skillsSpec(c) // --skills-dir: skills.go
	if err != nil {
		return err
	}
	secret, previous, err := cursorKeys(c) // keys.go
	if err != nil {
		return err
	}
	key, oldKeys := subkeys(secret, previous, cursorKeyInfo) // fleet.go: a subkey per purpose
	// metrics.go: served at /metrics with --http. Over stdio nothing can
	// read them, so no request, call or wait is counted there.
	m := metrics.NewSet()
	m.SetBuildInfo(build.Version, build.Revision, build.GoVersion)
	var observers []runtime.Observer
	scfg := server.NewConfig()
	if tr.addr != "" {
		scfg = scfg.WithObserver(m.Transport(tr.name()))
		observers = append(observers, m)
	}
	if c.IsSet("request-timeout") {
		scfg = scfg.WithRequestTimeout(c.Duration("request-timeout"))
	}
	listCache, err := config.ParseSize(c.String("list-cache"))
	if err != nil {
		return usageError("--list-cache: %v", err)
	}
	scfg = scfg.WithListCache(int64(min(listCache, server.MaxListCache+1))) // past the bound: Validate says so
	scfg = scfg.WithLogger(log).
		WithPageSize(c.Int("page-size")).WithMaxSubscriptions(c.Int("max-subscriptions")).
		WithSubscriptionShares(c.Int("max-subscriptions-per-client"), c.Int("max-subscriptions-total")).
		WithListenShares(c.Int("max-listens-per-client"), c.Int("max-listens")).
		WithResourceTools(c.Bool("resource-tools")).
		WithPageTime(c.Duration("page-time")).WithDrainTimeout(drain).
		WithInputEnded(shutdownFrom(c.Context).arm). // the end of stdin starts the bound (shutdown.go)
		// The runtime's own deadline fires first and labels the timeout;
		// the server's is the backstop for waits outside the guest.
		WithCallTimeout(cfg.MaxTimeout()+time.Second).
		WithImplementation("mcp-wasm", version).
		WithAuditLogger(tr.audit).WithCursorKey(key, oldKeys...)
	scfg, closeBus, err := withFleet(c, scfg, secret, previous, log) // fleet.go
	if err != nil {
		return err
	}
	defer closeBus()
	if roots != nil {
		scfg = scfg.WithRoots(roots.update)
	}
	if err := scfg.Validate(); err != nil { // before compiling anything
		return failure(fmt.Errorf("configuring server: %w", err))
	}
	rt, err := newRuntime(c, log, observers...)
	if err != nil {
		return err
	}
	defer rt.Close(context.WithoutCancel(c.Context))
	addSkills(cfg, skills)                    // before the first load; rereadSkills below for reloads
	loader, err := newLoader(c, rt, log, cfg) // configserve.go
	if err != nil {
		return err
	}
	first, err := loader.Load(c.Context, cfg)
	if err != nil {
		return failure(err)
	}
	logLoaded(c, log, first)
	rules, err := accessRules(c, first) // access.go
	if err != nil {
		first.Close(c.Context)
		return err
	}
	srv, err := server.New(scfg.WithProviders(serverProviders(first.Providers())...).WithRules(rules))
	if err != nil {
		first.Close(c.Context)
		return failure(err)
	}
	reread := rereadFor(cfg)
	if roots != nil {
		reread = roots.reread
	}
	reread = rereadSkills(skills, reread)
	set := served.NewSet(loader, first, served.SetOptions{Reread: reread, Publish: publishTo(srv), PublishGeneration: publishAccessTo(c, srv), Log: log})
	defer set.Close(c.Context)
	roots.serving(set)
	watchCtx, stopWatch := context.WithCancel(c.Context)
	var watching sync.WaitGroup
	defer watching.Wait()
	defer stopWatch() // before set.Close and the wait
	tr.instrument(m, set)
	m.WatchReadCache(rt.ReadCacheBytes)
	m.WatchListCache(srv.ListCacheBytes)
	set.StartFeeds(watchCtx, srv, runtime.NewChangeFeedConfig().WithActive(srv.Interested)) // live resources
	if cfg.File != "" {
		watching.Go(func() { watch(watchCtx, set, cfg.Server.Watching()) })
	}
	err = tr.serve(c, srv, set, log, len(cfg.Providers), min(max(2*cfg.MaxTimeout(), srv.RequestTimeout()), drain))
	// Closing (the feeds, the set, the runtime) waits for calls still
	// running: bounded as a signal is, after the end of stdin too.
	shutdownFrom(c.Context).arm()
	if err != nil {
		return failure(err)
	}
	log.Info("stopped")
	return nil
}

// serverProviders returns served providers as the server's, each behind
// the operator's filter of what clients see of it ("expose"): where the
// served set hands providers to the server, at start and at every reload.
func serverProviders(ps []*served.Provider) []server.Provider {
	out := make([]server.Provider, len(ps))
	for i, p := range ps {
		out[i] = server.WithURIFilter(asSkills(p), p.Spec().Expose) // skills.go
	}
	return out
}

// publishTo swaps a reloaded generation into srv.
func publishTo(srv *server.Server) served.Publish {
	return func(next []*served.Provider) (<-chan struct{}, error) {
		return srv.SetProviders(serverProviders(next)...)
	}
}

// rereadFor reads the config file of cfg again, for reloads; nil for a
// config from flags.
func rereadFor(cfg *config.Config) func() (*config.Config, error) {
	if cfg.File == "" {
		return nil
	}
	return func() (*config.Config, error) { return config.Read(cfg.File, os.LookupEnv) }
}

// watch reloads on SIGHUP and, unless the file says "watch": false, when
// the config file or a module changes, until ctx ends.
func watch(ctx context.Context, set *served.Set, poll bool) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	set.Watch(ctx, hup, poll, served.PollInterval)
}

// logLoaded logs each provider of the first generation and, for the
// built-in files provider, says on stderr what it exposes.
func logLoaded(c *cli.Context, log *slog.Logger, g *served.Generation) {
	if c.Bool("grant-roots") {
		fmt.Fprintln(c.App.ErrWriter, "mcp-wasm: --grant-roots: serving, read-only, the directories of the file:// roots the client announces, as they change")
	}
	for _, p := range g.Providers() {
		spec := p.Spec()
		attrs := []any{"provider", p.Name(), "module", spec.Module, "digest", p.Module().Digest, "uri_space", served.URISpace(p.Describe())}
		if m := p.Module(); m.Pinned != "" {
			attrs = append(attrs, "pinned", m.Pinned)
		}
		if m := p.Module(); m.Signer != "" {
			attrs = append(attrs, "signer", m.Signer)
		}
		log.Info("provider loaded", attrs...)
		if isSkills(spec) { // skills.go
			fmt.Fprintf(c.App.ErrWriter, "mcp-wasm: serving the skills in %s as skill://NAME/..., read-only; hidden files are not exposed\n", spec.Grants.Dirs[0].HostPath)
			continue
		}
		if spec.Module != builtinFiles || g.Config().File != "" {
			continue
		}
		hidden := "hidden files and .git are not exposed (--show-hidden exposes them)"
		if c.Bool("show-hidden") {
			hidden = "hidden files and .git ARE exposed (--show-hidden)"
		}
		fmt.Fprintf(c.App.ErrWriter, "mcp-wasm: serving every regular file under %s, read-only; %s\n", servedAs(spec.Grants.Dirs), hidden)
	}
}

// servedAs describes each grant of the built-in provider with the URIs
// its files get: "/home/me/notes as file:///home/me/notes/...".
func servedAs(dirs []runtime.DirGrant) string {
	out := make([]string, len(dirs))
	for i, d := range dirs {
		at, dir, err := runtime.MountedAt(d)
		switch {
		case err != nil:
			out[i] = d.HostPath
		case dir:
			out[i] = d.HostPath + " as " + strings.TrimSuffix(fileURI(at), "/") + "/..." // "/" is file:///...
		default:
			out[i] = d.HostPath + " as " + fileURI(at)
		}
	}
	return strings.Join(out, ", ")
}

// fileURI is the file:// URI of a guest path, each segment escaped.
func fileURI(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "file://" + strings.Join(segs, "/")
}
