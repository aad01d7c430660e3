package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/oci"
	"github.com/mcp-wasm/mcp-wasm/runtime"
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
	maxSize, err := moduleSizeFlag(c)
	if err != nil {
		return err
	}
	log, rt, err := newLoggedRuntime(c)
	if err != nil {
		return err
	}
	defer rt.Close(c.Context)
	ml, err := newModuleLoader(c, log)
	if err != nil {
		return err
	}
	m, err := ml.resolve(c.Context, path, "", nil, maxSize, false)
	if err != nil {
		return failure(err)
	}
	rep := rt.Inspect(c.Context, filepath.Base(path), m.Wasm, runtime.NewProviderConfig().WithModuleSizeLimit(int(maxSize)))
	if rep.Describe == nil {
		return failure(fmt.Errorf("%s is not a provider the host accepts (%s): fix it before publishing; mcp-wasm inspect %s shows why", path, strings.Join(rep.Problems, "; "), path))
	}
	ann, err := pushAnnotations(rep.Describe, c.StringSlice("annotation"))
	if err != nil {
		return err
	}
	pinned, err := ml.res.Client().Push(c.Context, ref, oci.Artifact{Wasm: m.Wasm, FileName: filepath.Base(path), Annotations: ann, Created: time.Now()})
	if err != nil {
		return failure(fmt.Errorf("push %s: %w", ref, err))
	}
	fmt.Fprintf(c.App.Writer, "pushed %s\nmodule %s (%d bytes)\n", pinned, m.Digest, len(m.Wasm))
	return nil
}

// pushAnnotations describes the provider on the manifest.
func pushAnnotations(d *abi.Describe, extra []string) (map[string]string, error) {
	roots := make([]string, len(d.URISpace))
	for i, r := range d.URISpace {
		roots[i] = r.String()
	}
	ann := map[string]string{
		oci.AnnotationProvider: d.Name,
		oci.AnnotationVersion:  d.Version,
		oci.AnnotationURISpace: strings.Join(roots, " "),
		oci.AnnotationABI:      fmt.Sprintf("mcpw_v%d", abi.Version),
	}
	if d.Description != "" {
		ann[oci.AnnotationDescription] = d.Description
	} else if d.Title != "" {
		ann[oci.AnnotationDescription] = d.Title
	}
	if d.Requests != nil {
		b, err := json.Marshal(d.Requests)
		if err != nil {
			return nil, err
		}
		ann[oci.AnnotationRequests] = string(b)
	}
	for _, kv := range extra {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usageError("--annotation %q: use KEY=VALUE", kv)
		}
		ann[k] = v
	}
	return ann, nil
}
