package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/served"
)

func inspectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inspect",
		Usage:     "show what a provider declares, imports and exports, and whether the host accepts it",
		ArgsUsage: "MODULE.wasm | oci://REGISTRY/REPOSITORY:TAG[@sha256:DIGEST]",
		Description: "Loads the module with the limits and grants given (none by default) and prints its\n" +
			"description, its imports with the host's verdict on each, its exports, and the\n" +
			"validation verdict; where the module came from: its sha256, the Sigstore signatures\n" +
			"found (a .sigstore.json beside a file, or attached in the registry) and, with the\n" +
			"signature flags, the verified signer. Exits 1 when the module is rejected.",
		Flags: append(limitFlags(), &cli.BoolFlag{Name: "json", Usage: "print the report as JSON"}),
		Action: func(c *cli.Context) error {
			if err := flagAfterArgs(c, "MODULE.wasm|oci://REF"); err != nil {
				return err
			}
			if c.NArg() != 1 {
				return usageError("inspect takes one MODULE.wasm or oci:// reference")
			}
			path := c.Args().First()
			spec, rt, loader, err := oneModule(c, path)
			if err != nil {
				return err
			}
			defer rt.Close(c.Context)
			req := served.RequestFor(spec)
			req.Signatures = true
			m, err := loader.Resolve(c.Context, req)
			if err != nil {
				return failure(fmt.Errorf("read module: %w", err))
			}
			rep := rt.Inspect(c.Context, served.ModuleHint(spec.Module), m.Wasm, spec.RuntimeConfig())
			if c.Bool("json") {
				if err := writeJSON(c.App.Writer, inspectJSON{rep, moduleInfoOf(m)}); err != nil {
					return failure(err)
				}
			} else {
				printModule(c.App.Writer, m, spec.Policy) // modules.go
				printReport(c.App.Writer, path, rep)
			}
			if !rep.Valid {
				return &exitError{code: 1}
			}
			return nil
		},
	}
}

// printReport prints an inspect report for a person. Every guest string
// is escaped by termLine (termtext.go), so that none can act on the
// terminal.
func printReport(w io.Writer, path string, rep runtime.Report) {
	row := func(k, format string, args ...any) { fmt.Fprintf(w, "%-11s %s\n", k, fmt.Sprintf(format, args...)) }
	row("module", "%s (%d bytes)", termLine(path, 1000), rep.Size)
	if rep.ABIVersion > 0 {
		row("abi", "mcpw_v%d (host speaks mcpw_v%d)", rep.ABIVersion, abi.Version)
	} else {
		row("abi", "none found (host speaks mcpw_v%d)", abi.Version)
	}
	verdict := "ACCEPTED"
	if !rep.Valid {
		verdict = "REJECTED"
	}
	row("verdict", "%s", verdict)
	if d := rep.Describe; d != nil {
		printDescribe(row, d)
	}
	printGrants(row, rep.Grants)
	for i, im := range rep.Imports {
		k := ""
		if i == 0 {
			k = "imports"
		}
		row(k, "%-45s %s", termLine(im.Module+"."+im.Name, 80)+" ("+im.Kind+")", im.Verdict)
	}
	if len(rep.Exports) > 0 {
		row("exports", "%s", termLine(strings.Join(rep.Exports, ", "), 2000))
	}
	for i, p := range rep.Problems {
		k := ""
		if i == 0 {
			k = "problems"
		}
		row(k, "%s", termLine(p, 2000))
	}
}

func printDescribe(row func(k, format string, args ...any), d *abi.Describe) {
	row("provider", "%s %s", termLine(d.Name, 100), termLine(d.Version, 100))
	if d.Title != "" {
		row("title", "%s", termLine(d.Title, 200))
	}
	if d.Description != "" {
		row("about", "%s", termLine(d.Description, 400))
	}
	roots := make([]string, len(d.URISpace))
	for i, r := range d.URISpace {
		roots[i] = r.String()
	}
	row("uri space", "%s", termLine(strings.Join(roots, "  "), 2000))
	row("operations", "%s", termLine(strings.Join(d.Operations, ", "), 200))
	req := describeRequests(d.Requests)
	if len(req) == 0 {
		req = []string{"nothing"}
	}
	for i, r := range req {
		k := ""
		if i == 0 {
			k = "requests"
		}
		row(k, "%s", r)
	}
}

func describeRequests(q *abi.Requests) []string {
	if q == nil {
		return nil
	}
	var out []string
	why := func(s string) string {
		if s == "" {
			return ""
		}
		return " — " + termLine(s, 200)
	}
	for _, f := range q.Filesystem {
		out = append(out, "filesystem "+termLine(f.Path, 300)+" (read-only)"+why(f.Reason))
	}
	for _, c := range q.Config {
		kind := "config"
		if c.Secret {
			kind = "secret"
		}
		out = append(out, kind+" "+termLine(c.Key, 200)+why(c.Reason))
	}
	for _, h := range q.HTTP {
		out = append(out, "http "+termLine(h.Prefix, 200)+why(h.Reason))
	}
	if q.Clock {
		out = append(out, "real clock")
	}
	if q.Random {
		out = append(out, "real randomness")
	}
	return out
}
