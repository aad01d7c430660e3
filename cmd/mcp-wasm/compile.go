package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/config"
)

// compileCommand bakes providers into a cache directory at image build
// time, for `serve --cache-readonly` to start from.
func compileCommand() *cli.Command {
	return &cli.Command{
		Name:      "compile",
		Usage:     "compile providers into --cache-dir, to serve from it read-only (an image that starts compiled)",
		ArgsUsage: "[MODULE.wasm | oci://REF ...]",
		Description: "Loads each provider as serve would (the modules given, those of --config FILE, or\n" +
			"with neither the built-in files provider), so that --cache-dir holds their compiled\n" +
			"code, their rewritten modules, the marks of modules that compiled within the compile\n" +
			"limits and, for oci:// modules, the module store; then writes the directory's\n" +
			"manifest (the SHA-256 of each entry). serve --cache-dir DIR --cache-readonly (or a DIR\n" +
			"it cannot write) uses only entries that match the manifest, and never writes to DIR.\n" +
			"Give compile the same limit flags or config file as serve: the compile limits are part\n" +
			"of a mark's key. Build the image as the user that serves (DIR must be private, 0700).",
		Flags:  append(limitFlags(), configFlag(), &cli.BoolFlag{Name: "show-hidden", Hidden: true}),
		Action: compileAction,
	}
}

func compileAction(c *cli.Context) error {
	if err := flagAfterArgs(c, "mcp-wasm compile [flags] [MODULE...]"); err != nil {
		return err
	}
	cfg, err := configFromFile(c)
	if err != nil {
		return err
	}
	if cfg != nil && c.NArg() > 0 {
		return usageError("compile takes modules or --config, not both: add %s to the config file", c.Args().First())
	}
	if c.String("cache-dir") == "" || c.Bool("cache-readonly") {
		return usageError("compile needs a writable --cache-dir DIR to compile into (and not --cache-readonly)")
	}
	if cfg == nil {
		if cfg, err = compileConfig(c); err != nil {
			return err
		}
	}
	log, rt, err := newLoggedRuntime(c)
	if err != nil {
		return err
	}
	defer rt.Close(c.Context)
	loader, err := newLoader(c, rt, log, cfg) // configserve.go
	if err != nil {
		return err
	}
	g, err := loader.Load(c.Context, cfg)
	if err != nil {
		return failure(err)
	}
	g.Close(c.Context)
	if err := rt.Seal(); err != nil {
		return failure(err)
	}
	fmt.Fprintf(c.App.ErrWriter, "mcp-wasm: compiled %d provider(s) into %s; serve with --cache-dir %s --cache-readonly\n",
		len(cfg.Providers), c.String("cache-dir"), c.String("cache-dir"))
	return nil
}

// compileConfig is the config of the modules given as arguments, with the
// limit and grant flags, or of the built-in files provider without any.
func compileConfig(c *cli.Context) (*config.Config, error) {
	spec, err := providerFromFlags(c)
	if err != nil {
		return nil, err
	}
	if c.NArg() == 0 {
		return defaultConfig(c, spec)
	}
	cfg := &config.Config{}
	for _, m := range c.Args().Slice() {
		p := spec
		p.Module = config.ModuleRef(m)
		cfg.Providers = append(cfg.Providers, p)
	}
	return cfg, nil
}
