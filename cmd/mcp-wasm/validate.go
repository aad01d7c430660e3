package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/server"
)

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:  "validate",
		Usage: "check a config file without serving",
		Description: "Reads the config file strictly (unknown keys, wrong types and duplicate keys are\n" +
			"errors, each with its line), resolves paths relative to the file, reads the\n" +
			"environment variables it names, loads every module with its grants and limits, and\n" +
			"checks that provider names are distinct and uri spaces disjoint: everything serve\n" +
			"checks before serving. Prints a summary (secret values masked) and exits 0, or\n" +
			"prints every problem and exits 1.",
		Flags:  append(commonFlags(), configFlag()),
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
	cc, err := configFromFlag(c)
	if err != nil {
		return err
	}
	log, rt, err := newLoggedRuntime(c)
	if err != nil {
		return err
	}
	defer rt.Close(context.WithoutCancel(c.Context))
	ml, err := newModuleLoader(c, log, cc.insecureRegistries()...) // modules.go
	if err != nil {
		return err
	}
	set, err := loadSet(c.Context, rt, ml, cc, log)
	if err != nil {
		return failure(err)
	}
	defer set.close(c.Context)
	if _, err := server.New(server.NewConfig().WithProviders(set.serverProviders()...).WithLogger(log)); err != nil {
		return failure(fmt.Errorf("%s: %w", cc.src.name, err))
	}
	fmt.Fprintf(c.App.Writer, "%s: ok: %d provider(s)\n%s", cc.src.name, len(set), summary(cc, set))
	if cc.server.Watch != nil && !*cc.server.Watch {
		fmt.Fprintln(c.App.Writer, "  (file watching off: serve reloads on SIGHUP only)")
	}
	return nil
}
