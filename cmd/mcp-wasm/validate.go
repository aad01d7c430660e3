package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/served"
	"github.com/mcp-wasm/mcp-wasm/server"
)

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:  "validate",
		Usage: "check a config file without serving",
		Description: "Reads the config file strictly (unknown keys, wrong types and duplicate keys are\n" +
			"errors, each with its line), resolves paths relative to the file, reads the\n" +
			"environment variables it names, resolves every module (pulling oci:// references\n" +
			"into the module store) and checks its pin and signatures against the policy, loads\n" +
			"it with its grants and limits, and checks that provider names are distinct and uri\n" +
			"spaces disjoint: everything serve checks before serving. Prints a summary (secret\n" +
			"values masked) and the access rules with --allow's, and exits 0, or prints every\n" +
			"problem and exits 1.",
		Flags:  append(commonFlags(), configFlag(), allowFlag()),
		Action: validateAction,
	}
}

func validateAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("validate takes no arguments (did you mean --config %s?)", c.Args().First())
	}
	if c.String("config") == "" {
		return usageError("validate needs --config FILE")
	}
	cfg, err := configFromFile(c)
	if err != nil {
		return err
	}
	log, rt, err := newLoggedRuntime(c)
	if err != nil {
		return err
	}
	defer rt.Close(context.WithoutCancel(c.Context))
	loader, err := newLoader(c, rt, log, cfg) // configserve.go
	if err != nil {
		return err
	}
	g, err := loader.Load(c.Context, cfg)
	if err != nil {
		return failure(err)
	}
	defer g.Close(c.Context)
	rules, err := accessRules(c, g) // access.go
	if err != nil {
		return err
	}
	if _, err := server.New(server.NewConfig().WithProviders(serverProviders(g.Providers())...).WithRules(rules).WithLogger(log)); err != nil {
		return failure(fmt.Errorf("%s: %w", cfg.File, err))
	}
	fmt.Fprintf(c.App.Writer, "%s: ok: %d provider(s)\n%s%s", cfg.File, len(cfg.Providers), summary(g), accessTable(rules))
	if !cfg.Server.Watching() {
		fmt.Fprintln(c.App.Writer, "  (file watching off: serve reloads on SIGHUP only)")
	}
	return nil
}

// summary describes a loaded set for validate, one provider a line, with
// grants shown by key only (values may be secrets).
func summary(g *served.Generation) string {
	var b strings.Builder
	for _, p := range g.Providers() {
		spec, d := p.Spec(), p.Describe()
		// termLine: the version is the guest's, the rest the operator's;
		// none may act on the terminal.
		fmt.Fprintf(&b, "  %s (line %d): %s %s\n", termLine(d.Name, 100), spec.Line(), termLine(string(spec.Module), 1000), termLine(d.Version, 100))
		fmt.Fprintf(&b, "    uri space:  %s\n", termLine(served.URISpace(d), 2000))
		fmt.Fprintf(&b, "    operations: %s\n", strings.Join(d.Operations, ", "))
		fmt.Fprintf(&b, "    grants:     %s\n", termLine(p.Grants().String(), 4000))
		fmt.Fprintf(&b, "    limits:     %s\n", termLine(spec.Limits.String(), 1000))
		if !spec.Expose.IsZero() {
			fmt.Fprintf(&b, "    exposes:    %s\n", termLine(spec.Expose.String(), 4000))
		}
		m := p.Module()
		fmt.Fprintf(&b, "    digest:     %s\n", m.Digest)
		if m.Pinned != "" {
			fmt.Fprintf(&b, "    pinned:     %s\n", termLine(string(m.Pinned), 1000))
		}
		if m.Signer != "" {
			fmt.Fprintf(&b, "    signer:     %s\n", termLine(m.Signer, 1000))
		}
	}
	return b.String()
}
