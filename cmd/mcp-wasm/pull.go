package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/internal/oci"
	"github.com/mcp-wasm/mcp-wasm/served"
)

func pullCommand() *cli.Command {
	return &cli.Command{
		Name:      "pull",
		Usage:     "fetch a provider from an OCI registry into the module store",
		ArgsUsage: "REGISTRY/REPOSITORY:TAG[@sha256:DIGEST]",
		Description: "Fetches the module, and the Sigstore bundles attached to it, into the module store under\n" +
			"--cache-dir (private, content-addressed, verified on every load), so that serve loads it\n" +
			"offline once pinned. With the signature flags, checks the signatures as serve will.\n" +
			"Prints the reference pinned to its digest, the module's sha256 and its signatures.",
		Flags: append(append(commonFlags(), policyFlags()...),
			&cli.StringFlag{Name: "max-module-size", Value: "32MiB", Usage: "largest .wasm accepted"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "also write the module to `FILE`"}),
		Action: pullAction,
	}
}

func pullAction(c *cli.Context) error {
	if err := flagAfterArgs(c, "REGISTRY/REPOSITORY:TAG"); err != nil {
		return err
	}
	if c.NArg() != 1 {
		return usageError("pull takes one REGISTRY/REPOSITORY:TAG")
	}
	ref, err := oci.ParseRef(c.Args().First())
	if err != nil {
		return usageError("%v", err)
	}
	maxSize, err := moduleSizeFlag(c) // modules.go
	if err != nil {
		return err
	}
	pol, err := policyFromFlags(c)
	if err != nil {
		return err
	}
	log, err := newLogger(c)
	if err != nil {
		return err
	}
	loader, err := newLoader(c, nil, log, nil) // pull loads nothing: it resolves
	if err != nil {
		return err
	}
	m, err := loader.Resolve(c.Context, served.Request{Ref: config.ModuleRef(ref.String()), Policy: pol, MaxBytes: maxSize, Refresh: true, Signatures: true})
	if err != nil {
		return failure(err)
	}
	if out := c.String("output"); out != "" {
		if err := os.WriteFile(out, m.Wasm, 0o644); err != nil {
			return failure(fmt.Errorf("write %s: %w", out, err))
		}
	}
	printModule(c.App.Writer, m, pol)
	return nil
}
