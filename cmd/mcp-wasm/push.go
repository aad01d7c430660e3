package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/internal/oci"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/served"
)

func pushCommand() *cli.Command {
	return &cli.Command{
		Name:      "push",
		Usage:     "publish a provider to an OCI registry as a Wasm OCI artifact",
		ArgsUsage: "MODULE.wasm REGISTRY/REPOSITORY:TAG",
		Description: "Checks the module as inspect does, then pushes it in the CNCF TAG-Runtime Wasm artifact\n" +
			"layout (config application/vnd.wasm.config.v0+json, one application/wasm layer) that\n" +
			"wkg, ORAS and wassette read, with annotations from its describe: name, version, URI space\n" +
			"and requested capabilities. Prints the reference pinned to the manifest digest: sign\n" +
			"that (cosign sign REGISTRY/REPOSITORY@sha256:...). Credentials come from docker's\n" +
			"config.json (docker login); without them the push is anonymous.",
		Flags: append(commonFlags(),
			&cli.StringFlag{Name: "max-module-size", Value: "32MiB", Usage: "largest .wasm accepted"},
			&cli.StringSliceFlag{Name: "annotation", Usage: "extra manifest annotation `KEY=VALUE` (repeatable)"}),
		Action: pushAction,
	}
}

func pushAction(c *cli.Context) error {
	if err := flagAfterArgs(c, "MODULE.wasm REGISTRY/REPOSITORY:TAG"); err != nil {
		return err
	}
	if c.NArg() != 2 {
		return usageError("push takes MODULE.wasm and REGISTRY/REPOSITORY:TAG")
	}
	path := c.Args().Get(0)
	ref, err := oci.ParseRef(c.Args().Get(1))
	if err != nil {
		return usageError("%v", err)
	}
	if ref.Tag == "" {
		return usageError("push %s: give a tag (REGISTRY/REPOSITORY:TAG); the digest is printed after the push", ref)
	}
	if _, isFile := config.ModuleRef(path).Path(); !isFile {
		return usageError("push %s: give the path of a .wasm file", path)
	}
	maxSize, err := moduleSizeFlag(c) // modules.go
	if err != nil {
		return err
	}
	log, rt, err := newLoggedRuntime(c)
	if err != nil {
		return err
	}
	defer rt.Close(c.Context)
	m, err := served.ResolveFile(c.Context, served.Request{Ref: config.ModuleRef(path), MaxBytes: maxSize})
	if err != nil {
		return failure(err)
	}
	rep := rt.Inspect(c.Context, filepath.Base(path), m.Wasm, runtime.NewProviderConfig().WithModuleSizeLimit(maxSize))
	if rep.Describe == nil {
		return failure(fmt.Errorf("%s is not a provider the host accepts (%s): fix it before publishing; mcp-wasm inspect %s shows why", path, strings.Join(rep.Problems, "; "), path))
	}
	ann, err := oci.ProviderAnnotations(*rep.Describe)
	if err != nil {
		return failure(err)
	}
	for _, kv := range c.StringSlice("annotation") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usageError("--annotation %q: use KEY=VALUE", kv)
		}
		ann[k] = v
	}
	log.Debug("pushing", "module", path, "digest", m.Digest, "to", ref)
	pinned, err := registryClient(c).Push(c.Context, ref, oci.Artifact{Wasm: m.Wasm, FileName: filepath.Base(path), Annotations: ann, Created: time.Now()})
	if err != nil {
		return failure(fmt.Errorf("push %s: %w", ref, err))
	}
	fmt.Fprintf(c.App.Writer, "pushed %s\nmodule %s (%d bytes)\n", pinned, m.Digest, len(m.Wasm))
	return nil
}
