package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/cmd/mcp-wasm/defaultprovider"
	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/internal/hostfile"
	"github.com/mcp-wasm/mcp-wasm/internal/modsource"
	"github.com/mcp-wasm/mcp-wasm/internal/oci"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/served"
)

// builtinFiles names the built-in files provider (serve without --module);
// a config file may name it too.
const builtinFiles config.ModuleRef = "builtin://files"

// resolver is where every command reads modules from: the built-in files
// provider, module files and oci:// references, each checked against its
// pin and signature policy (served.Verified). OCI modules are kept in the
// module store under --cache-dir (DIR/modules); the registries of
// --insecure-registry and insecure (the config file's) are reached over
// plain HTTP.
func resolver(c *cli.Context, insecure ...string) (served.Resolver, error) {
	var store *oci.Store
	if dir := c.String("cache-dir"); dir != "" {
		// The check the runtime makes of its cache, for every command:
		// pull, which makes no runtime, accepted a world-writable or
		// symlinked --cache-dir that validate and call refused.
		dir, err := hostfile.PrivateDir(dir)
		if err != nil {
			return nil, failure(fmt.Errorf("--cache-dir: %w", err))
		}
		if store, err = oci.OpenStore(filepath.Join(dir, "modules")); err != nil {
			return nil, failure(err)
		}
	}
	src := modsource.New(store, registryClient(c, insecure...))
	return served.Builtin(map[config.ModuleRef][]byte{builtinFiles: defaultprovider.Wasm()}, served.Verified(src)), nil
}

// registryClient reaches registries with docker's credentials, over HTTPS
// but for the insecure ones.
func registryClient(c *cli.Context, insecure ...string) *oci.Client {
	return oci.NewClient(oci.Options{Insecure: append(c.StringSlice("insecure-registry"), insecure...), UserAgent: "mcp-wasm/" + version})
}

// newLoader is the loader of every command: it loads into rt (nil for a
// command that loads nothing, such as lock) what resolver resolves, with
// the plain-HTTP registries of cfg's file, if any.
func newLoader(c *cli.Context, rt *runtime.Runtime, log *slog.Logger, cfg *config.Config) (*served.Loader, error) {
	var insecure []string
	if cfg != nil {
		insecure = cfg.Server.InsecureRegistries
	}
	resolve, err := resolver(c, insecure...)
	if err != nil {
		return nil, err
	}
	return served.NewLoader(rt, resolve, log), nil
}

// configFlag is the --config FILE of serve, validate and lock.
func configFlag() cli.Flag {
	return &cli.StringFlag{Name: "config", Usage: "config `FILE` (JSON, docs/config.schema.json) declaring providers (module, pin, signature policy, grants, limits, what clients see) and server settings"}
}

// configFromFile reads --config FILE, if given. It refuses the flags that
// configure providers (the file is the single source of truth for them)
// and applies the file's server settings to the flags not given
// explicitly. It returns nil without --config.
func configFromFile(c *cli.Context) (*config.Config, error) {
	path := c.String("config")
	if path == "" {
		return nil, nil
	}
	if err := refuseProviderFlags(c); err != nil {
		return nil, err
	}
	cfg, err := config.Read(path, os.LookupEnv)
	if err != nil {
		return nil, failure(err)
	}
	return cfg, applyServerSettings(c, cfg)
}

// refuseProviderFlags refuses per-provider flags next to --config.
func refuseProviderFlags(c *cli.Context) error {
	common := map[string]bool{}
	for _, f := range commonFlags() {
		common[f.Names()[0]] = true
	}
	names := []string{"module", "show-hidden"} // and limitFlags' policyFlags
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
func applyServerSettings(c *cli.Context, cfg *config.Config) error {
	s := cfg.Server
	settings := map[string]*string{"log-level": s.LogLevel, "log-format": s.LogFormat, "cache-dir": s.CacheDir, "bus": s.Bus}
	for flag, n := range map[string]*int{"page-size": s.PageSize, "max-concurrency": s.MaxConcurrency, "max-subscriptions": s.MaxSubscriptions} {
		if n != nil {
			v := strconv.Itoa(*n)
			settings[flag] = &v
		}
	}
	if s.ResourceTools != nil {
		on := strconv.FormatBool(*s.ResourceTools)
		settings["resource-tools"] = &on
	}
	if s.ReadCache != nil {
		n := strconv.FormatUint(*s.ReadCache, 10)
		settings["read-cache"] = &n
	}
	if s.ListCache != nil {
		n := strconv.FormatUint(*s.ListCache, 10)
		settings["list-cache"] = &n
	}
	for flag, v := range settings {
		if v == nil || c.IsSet(flag) || !slices.ContainsFunc(c.Command.Flags, func(f cli.Flag) bool { return f.Names()[0] == flag }) {
			continue
		}
		if err := c.Set(flag, *v); err != nil {
			return failure(fmt.Errorf("%s: server: %s: %w", cfg.At("server"), flag, err))
		}
	}
	return nil
}

// configFromFlags turns serve's --module, limit and grant flags into the
// same config a file gives: the modules named, or the built-in files
// provider over --allow-dir (default: the current directory).
func configFromFlags(c *cli.Context) (*config.Config, error) {
	spec, err := providerFromFlags(c)
	if err != nil {
		return nil, err
	}
	modules := c.StringSlice("module")
	if len(modules) == 0 {
		return defaultConfig(c, spec)
	}
	if set := grantFlagsSet(c); len(modules) > 1 && len(set) > 0 {
		return nil, failure(fmt.Errorf("%s grant to a single --module; with several modules, give each its grants in a config file (--config FILE)", strings.Join(set, ", ")))
	}
	cfg := &config.Config{}
	for _, m := range modules {
		p := spec
		p.Module = config.ModuleRef(m)
		cfg.Providers = append(cfg.Providers, p)
	}
	return cfg, nil
}

// defaultConfig serves the built-in files provider over the granted
// directories and files (default: the current directory, unless it is a
// broad one such as / or the home directory; none with --grant-roots). The
// runtime refuses grants that overlap, naming both.
func defaultConfig(c *cli.Context, spec config.Provider) (*config.Config, error) {
	if len(spec.Grants.Dirs) == 0 && !c.Bool("grant-roots") && c.String("skills-dir") == "" { // roots.go: the client's roots instead; skills.go: the skills alone
		cwd, err := implicitDir() // servedirs.go: not / nor the home directory
		if err != nil {
			return nil, err
		}
		spec.Grants.Dirs = []runtime.DirGrant{{HostPath: cwd}}
	}
	for _, d := range spec.Grants.Dirs {
		if fi, err := os.Stat(d.HostPath); err != nil || !(fi.IsDir() || fi.Mode().IsRegular()) {
			return nil, failure(fmt.Errorf("--allow-dir %s: not a readable directory or file: give an existing directory", d.HostPath))
		}
	}
	spec = builtinSpec(c, spec)
	if len(spec.Grants.Dirs) == 0 { // --grant-roots: nothing until the client's roots
		return &config.Config{}, nil
	}
	return &config.Config{Providers: []config.Provider{spec}}, nil
}

// builtinSpec is spec as the built-in files provider, with --show-hidden.
func builtinSpec(c *cli.Context, spec config.Provider) config.Provider {
	if c.Bool("show-hidden") {
		spec.Grants.Config = cloneMap(spec.Grants.Config)
		spec.Grants.Config["show_hidden"] = "true"
	}
	spec.Module = builtinFiles
	return spec
}

func cloneMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}
