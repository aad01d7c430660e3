package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/config"
)

func lockCommand() *cli.Command {
	return &cli.Command{
		Name:  "lock",
		Usage: "pin every module of a config file to the digest it has now",
		Description: "Resolves each provider's module: an oci:// tag to the manifest digest it names now\n" +
			"(written as TAG@sha256:...), and every module's bytes to their sha256 (written as\n" +
			"\"sha256\"). The modules are pulled into the module store and checked against the\n" +
			"file's signature policy first. Only those two values change in the file; a reload\n" +
			"or a new replica then runs exactly these bytes, offline once pulled. A reference\n" +
			"already pinned stays pinned: delete its @sha256:... to move it.",
		Flags:  append(commonFlags(), configFlag()),
		Action: lockAction,
	}
}

func lockAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("lock takes no arguments (did you mean --config %s?)", c.Args().First())
	}
	path := c.String("config")
	if path == "" {
		return usageError("lock needs --config FILE")
	}
	cfg, err := configFromFile(c) // configserve.go
	if err != nil {
		return err
	}
	log, err := newLogger(c)
	if err != nil {
		return err
	}
	loader, err := newLoader(c, nil, log, cfg) // lock loads nothing: it resolves
	if err != nil {
		return err
	}
	text, mods, err := loader.Lock(c.Context, cfg)
	if err != nil {
		return failure(fmt.Errorf("%s: %w", path, err))
	}
	if err := config.WriteFile(path, text); err != nil {
		return failure(err)
	}
	for i, m := range mods {
		pinned := cfg.Providers[i].Module
		if m.Pinned != "" {
			pinned = m.Pinned
		}
		fmt.Fprintln(c.App.Writer, termLine(fmt.Sprintf("%s: %s sha256 %s", cfg.Providers[i].Key(), pinned, strings.TrimPrefix(m.Digest, "sha256:")), 2000))
	}
	fmt.Fprintf(c.App.Writer, "%s: %d module(s) pinned\n", path, len(mods))
	return nil
}
