package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// configFlag is serve's and validate's --config FILE.
func configFlag() cli.Flag {
	return &cli.StringFlag{Name: "config", Usage: "config `FILE` (JSON, docs/config.schema.json) declaring providers, grants, limits and server settings"}
}

// configFromFlag reads --config FILE, if given. It refuses the flags that
// configure providers (the file is the single source of truth for them)
// and applies the file's server settings to the flags not given
// explicitly. It returns nil without --config.
func configFromFlag(c *cli.Context) (*checkedConfig, error) {
	path := c.String("config")
	if path == "" {
		return nil, nil
	}
	if err := refuseProviderFlags(c); err != nil {
		return nil, err
	}
	cc, err := readConfig(path, os.LookupEnv)
	if err != nil {
		return nil, failure(err)
	}
	return cc, applyServerSettings(c, cc)
}

// refuseProviderFlags refuses per-provider flags next to --config.
func refuseProviderFlags(c *cli.Context) error {
	common := map[string]bool{}
	for _, f := range commonFlags() {
		common[f.Names()[0]] = true
	}
	names := []string{"module", "show-hidden"}
	for _, f := range limitFlags() {
		if n := f.Names()[0]; !common[n] {
			names = append(names, n)
		}
	}
	for _, n := range names {
		if c.IsSet(n) {
			return usageError("--%s and --config: providers, grants and limits come from the config file alone: move --%s into it", n, n)
		}
	}
	return nil
}

// applyServerSettings sets the flags named by the file's server settings,
// unless given on the command line.
func applyServerSettings(c *cli.Context, cc *checkedConfig) error {
	s := cc.server
	settings := map[string]*string{"log-level": s.LogLevel, "log-format": s.LogFormat}
	if s.CacheDir != nil {
		dir := *s.CacheDir
		if dir != "" {
			dir = resolvePath(cc.dir, dir)
		}
		settings["cache-dir"] = &dir
	}
	if s.PageSize != nil {
		n := strconv.Itoa(*s.PageSize)
		settings["page-size"] = &n
	}
	if s.ResourceTools != nil {
		on := strconv.FormatBool(*s.ResourceTools)
		settings["resource-tools"] = &on
	}
	for flag, v := range settings {
		if v == nil || c.IsSet(flag) || !slices.ContainsFunc(c.Command.Flags, func(f cli.Flag) bool { return f.Names()[0] == flag }) {
			continue
		}
		if err := c.Set(flag, *v); err != nil {
			return failure(fmt.Errorf("%s: server: %s: %w", cc.src.at("server"), flag, err))
		}
	}
	return nil
}

// providerSource is where serve's providers come from: the flags (a fixed
// set) or a config file (a set the reloader replaces).
type providerSource struct {
	providers []server.Provider
	timeout   time.Duration // the largest per-call deadline
	closers   []*runtime.Provider
	rl        *reloader
	cc        *checkedConfig
	wg        sync.WaitGroup // the watcher
}

// openSource loads the first set of providers, from cc if it is not nil,
// else from the flags. Close the source even on error.
func openSource(c *cli.Context, rt *runtime.Runtime, ml *moduleLoader, cfg runtime.ProviderConfig, cc *checkedConfig, log *slog.Logger) (*providerSource, error) {
	src := &providerSource{timeout: cfg.Timeout(), cc: cc}
	if cc == nil {
		ps, err := loadProviders(c, rt, ml, cfg, log)
		src.closers = ps
		for _, p := range ps {
			src.providers = append(src.providers, p)
		}
		return src, err
	}
	src.rl = newReloader(cc.src.name, os.LookupEnv, rt, ml, log)
	set, err := src.rl.start(c.Context, cc)
	if err != nil {
		return src, err
	}
	for i, s := range set {
		log.Info("provider loaded", "provider", s.desc.Name, "module", cc.providers[i].module, "uri_space", uriSpace(s.desc))
	}
	src.providers, src.timeout = set.serverProviders(), cc.maxTimeout()
	return src, nil
}

// watch starts hot reload (config file only): SIGHUP always, file changes
// unless the file says "watch": false. The watcher stops with ctx.
func (src *providerSource) watch(ctx context.Context, srv *server.Server) {
	if src.rl == nil {
		return
	}
	src.rl.attach(srv)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	poll := src.cc.server.Watch == nil || *src.cc.server.Watch
	src.wg.Go(func() {
		defer signal.Stop(hup)
		src.rl.watch(ctx, hup, poll, pollInterval)
	})
}

// close stops the watcher (its ctx must be done) and closes every provider.
func (src *providerSource) close(ctx context.Context) {
	src.wg.Wait()
	if src.rl != nil {
		src.rl.close(ctx)
	}
	for _, p := range src.closers {
		_ = p.Close(context.WithoutCancel(ctx))
	}
}
