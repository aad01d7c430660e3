package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// grantFlags are the grants beyond --allow-dir and --config, shared by
// inspect, call and serve. Every one is off by default.
func grantFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "config-env", Usage: "grant config value `KEY=ENVVAR`: config key KEY gets the value of environment variable ENVVAR (repeatable)"},
		&cli.StringSliceFlag{Name: "secret-env", Usage: "grant secret `KEY=ENVVAR`: like --config-env, but the value is never shown or logged (repeatable)"},
		&cli.StringSliceFlag{Name: "allow-http", Usage: "allow outbound HTTP under `PREFIX` (scheme://host[:port]/path/) with GET and HEAD; write GET,POST=PREFIX to allow POST too (repeatable)"},
		&cli.BoolFlag{Name: "allow-private-network", Usage: "let allowed HTTP reach loopback, private, link-local and CGNAT addresses (cloud metadata stays refused)"},
		&cli.StringFlag{Name: "http-max-response", Value: "1MiB", Usage: "largest HTTP response body (`SIZE`) a provider may fetch"},
		&cli.DurationFlag{Name: "http-timeout", Usage: "deadline (`DURATION`) of one HTTP request inside the call's deadline (0: the call's)"},
		&cli.BoolFlag{Name: "grant-clock", Usage: "give the provider the real clock (default: a fake one)"},
		&cli.BoolFlag{Name: "grant-random", Usage: "give the provider crypto/rand (default: a deterministic source)"},
	}
}

// moreGrants adds the grantFlags to g. lookup reads the environment: only
// the variables named by --config-env and --secret-env are read.
func moreGrants(c *cli.Context, g runtime.Grants, lookup func(string) (string, bool)) (runtime.Grants, error) {
	values, err := valuesFromEnv("config-env", c.StringSlice("config-env"), lookup)
	if err != nil {
		return g, err
	}
	for k, v := range values {
		if _, dup := g.Config[k]; dup {
			return g, usageError("config key %q is granted by both --config-value and --config-env: grant it once", k)
		}
		if g.Config == nil {
			g.Config = map[string]string{}
		}
		g.Config[k] = v
	}
	if g.Secrets, err = valuesFromEnv("secret-env", c.StringSlice("secret-env"), lookup); err != nil {
		return g, err
	}
	for _, spec := range c.StringSlice("allow-http") {
		g.HTTP.Allow = append(g.HTTP.Allow, parseHTTPRule(spec))
	}
	if g.HTTP.Granted() {
		n, err := config.ParseSize(c.String("http-max-response"))
		if err != nil {
			return g, usageError("--http-max-response: %v", err)
		}
		g.HTTP.MaxResponseBytes = int(min(n, 1<<40))
		g.HTTP.Timeout = c.Duration("http-timeout")
		g.HTTP.AllowPrivateNetwork = c.Bool("allow-private-network")
	} else if c.Bool("allow-private-network") {
		return g, usageError("--allow-private-network needs --allow-http: it only widens the HTTP grant")
	}
	g.Clock, g.Random = c.Bool("grant-clock"), c.Bool("grant-random")
	return g, nil
}

// valuesFromEnv resolves --flag KEY=ENVVAR specs. A variable that is not
// set is an error naming it; one set to "" grants the empty value. Values
// are never part of an error.
func valuesFromEnv(flag string, specs []string, lookup func(string) (string, bool)) (map[string]string, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, spec := range specs {
		k, env, ok := strings.Cut(spec, "=")
		if !ok || k == "" || env == "" {
			return nil, usageError("--%s %q: use KEY=ENVVAR", flag, spec)
		}
		if _, dup := out[k]; dup {
			return nil, usageError("--%s: key %q given twice", flag, k)
		}
		v, ok := lookup(env)
		if !ok {
			return nil, usageError("--%s %s: environment variable %s is not set: export it before starting mcp-wasm, or remove the grant", flag, k, env)
		}
		out[k] = v
	}
	return out, nil
}

// parseHTTPRule reads PREFIX or METHODS=PREFIX (METHODS comma-separated);
// the runtime validates both parts.
func parseHTTPRule(spec string) runtime.HTTPRule {
	if m, prefix, ok := strings.Cut(spec, "="); ok && m != "" && !strings.ContainsAny(m, ":/") {
		return runtime.HTTPRule{Prefix: prefix, Methods: strings.Split(strings.ToUpper(m), ",")}
	}
	return runtime.HTTPRule{Prefix: spec}
}

// grantFlagsSet names the grant flags given on the command line, for
// commands that must refuse command-line grants with several modules.
func grantFlagsSet(c *cli.Context) []string {
	var set []string
	for _, name := range []string{"allow-dir", "config-value", "config-env", "secret-env", "allow-http", "allow-private-network", "grant-clock", "grant-random"} {
		if c.IsSet(name) {
			set = append(set, "--"+name)
		}
	}
	return set
}
