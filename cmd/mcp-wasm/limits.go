package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// limitFlags are the per-provider limits, grants and signature policy
// shared by call, inspect and serve.
func limitFlags() []cli.Flag {
	return append(append(append(commonFlags(), grantFlags()...), policyFlags()...), // policyFlags: modules.go
		&cli.DurationFlag{Name: "timeout", Value: runtime.DefaultTimeout, Usage: "deadline of each provider call"},
		&cli.StringFlag{Name: "memory", Value: "64MiB", Usage: "linear memory cap per instance"},
		&cli.StringFlag{Name: "max-output", Value: "4MiB", Usage: "output cap per call"},
		&cli.StringFlag{Name: "max-module-size", Value: "32MiB", Usage: "largest .wasm accepted"},
		&cli.IntFlag{Name: "pool-size", Value: runtime.DefaultPoolSize, Usage: "instances per provider (= concurrent calls)"},
		&cli.IntFlag{Name: "recycle-after", Value: 0, Usage: "replace an instance after N calls (0: never)"},
		&cli.DurationFlag{Name: "init-timeout", Value: runtime.DefaultInitTimeout, Usage: "deadline of a new instance's start (_initialize, and describe at load)"},
		&cli.DurationFlag{Name: "compile-timeout", Value: runtime.DefaultCompileTimeout, Usage: "deadline of compiling the module (a large module on a busy machine may need more)"},
		&cli.IntFlag{Name: "quarantine-after", Value: runtime.DefaultFaultThreshold, Usage: "quarantine a provider after `N` faults in a row (timeouts, traps, ABI violations)"},
		&cli.DurationFlag{Name: "quarantine-backoff", Value: runtime.DefaultQuarantineBase, Usage: "first quarantine; it doubles after each failed trial call"},
		&cli.DurationFlag{Name: "quarantine-max-backoff", Value: runtime.DefaultQuarantineMax, Usage: "longest quarantine"},
		&cli.StringSliceFlag{Name: "allow-dir", Usage: "grant read-only access to `PATH`, a directory tree or a single file, seen by the provider at its real path (repeatable; grants may not overlap; a config file can map one elsewhere)"},
		&cli.StringSliceFlag{Name: "config-value", Usage: "grant config value `KEY=VALUE` to the provider (repeatable)"},
	)
}

// idleTimeoutFlag is serve's: how long an idle instance beyond the first
// is kept (runtime/poolidle.go).
func idleTimeoutFlag() cli.Flag {
	return &cli.DurationFlag{Name: "idle-timeout", Value: runtime.DefaultIdleTimeout, Usage: "close an instance beyond the first after it has been idle this long, returning its memory (at most 24h)"}
}

// providerFromFlags turns the limit, grant and policy flags into a
// provider spec (its module is the caller's to set).
func providerFromFlags(c *cli.Context) (config.Provider, error) {
	var p config.Provider
	sizes := map[string]uint64{}
	for _, name := range []string{"memory", "max-output", "max-module-size"} {
		n, err := config.ParseSize(c.String(name))
		if err != nil {
			return p, usageError("--%s: %v", name, err)
		}
		sizes[name] = n
	}
	p.Limits = config.Limits{
		Timeout: c.Duration("timeout"), Memory: sizes["memory"],
		Output: config.ClampInt(sizes["max-output"]), ModuleSize: config.ClampInt(sizes["max-module-size"]),
		PoolSize: c.Int("pool-size"), RecycleAfter: c.Int("recycle-after"),
		InitTimeout: c.Duration("init-timeout"), CompileTimeout: c.Duration("compile-timeout"),
		Quarantine: config.Quarantine{After: c.Int("quarantine-after"), Backoff: c.Duration("quarantine-backoff"), MaxBackoff: c.Duration("quarantine-max-backoff")},
	}
	if err := refuseZeroLimits(p.Limits); err != nil {
		return p, err
	}
	if c.IsSet("idle-timeout") { // serve's only; the range is the runtime's to check
		if p.Limits.IdleTimeout = c.Duration("idle-timeout"); p.Limits.IdleTimeout <= 0 {
			return p, usageError("--idle-timeout %s: give a positive duration, such as %s", p.Limits.IdleTimeout, runtime.DefaultIdleTimeout)
		}
	}
	grants, err := grantsFromFlags(c.StringSlice("allow-dir"), c.StringSlice("config-value"))
	if err != nil {
		return p, err
	}
	if p.Grants, err = moreGrants(c, grants, os.LookupEnv); err != nil {
		return p, err
	}
	if p.Policy, err = policyFromFlags(c); err != nil { // modules.go
		return p, err
	}
	return p, nil
}

// refuseZeroLimits refuses a limit flag set to 0, which a config.Limits
// would read as "the default".
func refuseZeroLimits(l config.Limits) error {
	for flag, zero := range map[string]bool{"timeout": l.Timeout == 0, "memory": l.Memory == 0, "max-output": l.Output == 0,
		"max-module-size": l.ModuleSize == 0, "pool-size": l.PoolSize == 0, "init-timeout": l.InitTimeout == 0,
		"compile-timeout": l.CompileTimeout == 0, "quarantine-after": l.Quarantine.After == 0,
		"quarantine-backoff": l.Quarantine.Backoff == 0, "quarantine-max-backoff": l.Quarantine.MaxBackoff == 0} {
		if zero {
			return usageError("--%s 0: give a positive value", flag)
		}
	}
	return nil
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
