package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// limitFlags are the per-provider limits shared by call and serve.
func limitFlags() []cli.Flag {
	return append(append(append(commonFlags(), grantFlags()...), policyFlags()...), // policyFlags: modules.go
		&cli.DurationFlag{Name: "timeout", Value: runtime.DefaultTimeout, Usage: "deadline of each provider call"},
		&cli.StringFlag{Name: "memory", Value: "64MiB", Usage: "linear memory cap per instance"},
		&cli.StringFlag{Name: "max-output", Value: "4MiB", Usage: "output cap per call"},
		&cli.StringFlag{Name: "max-module-size", Value: "32MiB", Usage: "largest .wasm accepted"},
		&cli.IntFlag{Name: "pool-size", Value: runtime.DefaultPoolSize, Usage: "instances per provider (= concurrent calls)"},
		&cli.IntFlag{Name: "recycle-after", Value: 0, Usage: "replace an instance after N calls (0: never)"},
		&cli.StringSliceFlag{Name: "allow-dir", Usage: "grant read-only access to `PATH`, a directory tree or a single file, mounted where the provider asks (repeatable)"},
		&cli.StringSliceFlag{Name: "config-value", Usage: "grant config value `KEY=VALUE` to the provider (repeatable)"},
	)
}

// providerConfig turns the limit flags into a runtime.ProviderConfig.
func providerConfig(c *cli.Context) (runtime.ProviderConfig, error) {
	cfg := runtime.NewProviderConfig().WithTimeout(c.Duration("timeout")).
		WithPoolSize(c.Int("pool-size")).WithRecycleAfter(c.Int("recycle-after"))
	sizes := map[string]uint64{}
	for _, name := range []string{"memory", "max-output", "max-module-size"} {
		n, err := parseSize(c.String(name))
		if err != nil {
			return cfg, usageError("--%s: %v", name, err)
		}
		sizes[name] = n
	}
	cfg = cfg.WithMemoryLimit(sizes["memory"]).WithOutputLimit(int(min(sizes["max-output"], 1<<40))).
		WithModuleSizeLimit(int(min(sizes["max-module-size"], 1<<40)))
	grants, err := grantsFromFlags(c.StringSlice("allow-dir"), c.StringSlice("config-value"))
	if err != nil {
		return cfg, err
	}
	if grants, err = moreGrants(c, grants, os.LookupEnv); err != nil {
		return cfg, err
	}
	return cfg.WithGrants(grants), nil
}

func grantsFromFlags(dirs, configs []string) (runtime.Grants, error) {
	var g runtime.Grants
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return g, usageError("--allow-dir %q: %v", d, err)
		}
		g.Dirs = append(g.Dirs, runtime.DirGrant{HostPath: abs})
	}
	for _, kv := range configs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return g, usageError("--config-value %q: use KEY=VALUE", kv)
		}
		if g.Config == nil {
			g.Config = map[string]string{}
		}
		g.Config[k] = v
	}
	return g, nil
}
