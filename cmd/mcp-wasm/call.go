package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/served"
)

func callCommand() *cli.Command {
	return &cli.Command{
		Name:      "call",
		Usage:     "run one provider operation through the full sandbox, without an MCP client",
		ArgsUsage: "MODULE.wasm|oci://REF describe | list | templates | read URI | complete TEMPLATE ARG [VALUE] | changes",
		Description: "The provider author's debugging tool: the call runs with every limit on, exactly as\n" +
			"under serve, and the module is checked against the signature flags as serve checks it.\n" +
			"Guest logs go to stderr (--log-level debug shows all of them).",
		Flags: append(limitFlags(),
			&cli.BoolFlag{Name: "json", Usage: "print the result payload as JSON"},
			&cli.StringFlag{Name: "cursor", Usage: "cursor for list, templates and changes"},
			&cli.StringSliceFlag{Name: "arg", Usage: "other resolved template argument `NAME=VALUE` for complete (repeatable)"},
			&cli.StringSliceFlag{Name: "path", Usage: "changed guest `PATH` to report to changes (repeatable)"},
		),
		Action: callAction,
	}
}

func callAction(c *cli.Context) error {
	args := c.Args().Slice()
	if err := flagAfterArgs(c, "MODULE.wasm OPERATION ..."); err != nil {
		return err
	}
	if len(args) < 2 {
		return usageError("call needs MODULE.wasm and an operation (describe, list, templates, read, complete, changes)")
	}
	spec, rt, loader, err := oneModule(c, args[0])
	if err != nil {
		return err
	}
	defer rt.Close(c.Context)
	m, err := loader.Resolve(c.Context, served.RequestFor(spec))
	var p *runtime.Provider
	if err == nil {
		p, err = rt.Load(c.Context, served.ModuleHint(spec.Module), m.Wasm, spec.RuntimeConfig())
	}
	if err != nil {
		return failure(fmt.Errorf("load %s: %w", args[0], err))
	}
	defer p.Close(c.Context)
	result, err := invoke(c, p, args[1], args[2:])
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	if err != nil {
		return failure(err)
	}
	if c.Bool("json") {
		return writeJSON(c.App.Writer, result)
	}
	printResult(c.App.Writer, result)
	return nil
}

// writeJSON writes v as indented JSON with every control and format
// character escaped (safeJSON).
func writeJSON(w io.Writer, v any) error {
	js, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(safeJSON(js), '\n'))
	return err
}

func invoke(c *cli.Context, p *runtime.Provider, op string, rest []string) (any, error) {
	ctx := c.Context
	want := map[string]int{"describe": 0, "list": 0, "templates": 0, "read": 1, "changes": 0}
	if n, ok := want[op]; ok && len(rest) != n {
		return nil, usageError("%s takes %d argument(s), got %d", op, n, len(rest))
	}
	switch op {
	case "describe":
		return p.Describe(), nil
	case "list":
		return p.List(ctx, c.String("cursor"))
	case "templates":
		return p.Templates(ctx, c.String("cursor"))
	case "read":
		return p.Read(ctx, rest[0])
	case "complete":
		return complete(ctx, p, rest, c.StringSlice("arg"))
	case "changes":
		return p.Changes(ctx, abi.ChangesRequest{Cursor: c.String("cursor"), Paths: c.StringSlice("path")})
	}
	return nil, usageError("unknown operation %q: use describe, list, templates, read, complete or changes", op)
}

func complete(ctx context.Context, p *runtime.Provider, rest, others []string) (any, error) {
	if len(rest) < 2 || len(rest) > 3 {
		return nil, usageError("complete takes TEMPLATE ARG [VALUE]")
	}
	req := abi.CompleteRequest{Template: rest[0], Argument: abi.CompleteArgument{Name: rest[1]}}
	if len(rest) == 3 {
		req.Argument.Value = rest[2]
	}
	for _, kv := range others {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, usageError("--arg %q: use NAME=VALUE", kv)
		}
		if req.Arguments == nil {
			req.Arguments = map[string]string{}
		}
		req.Arguments[k] = v
	}
	return p.Complete(ctx, req)
}

// printResult prints a result for a person. Every guest string is
// escaped (termtext.go): one-line fields by termLine, read contents, which
// are the point of the command, whole by termText.
func printResult(w io.Writer, result any) {
	s := func(v string) string { return termLine(v, 300) }
	switch r := result.(type) {
	case abi.Describe:
		printDescribe(func(k, f string, a ...any) { fmt.Fprintf(w, "%-11s %s\n", k, fmt.Sprintf(f, a...)) }, &r)
	case *abi.ListResult:
		for _, res := range r.Resources {
			fmt.Fprintf(w, "%s\t%s\t%s\n", s(res.URI), s(res.Name), s(res.MIMEType))
		}
		fmt.Fprintf(w, "(%d resources", len(r.Resources))
		if r.NextCursor != "" {
			fmt.Fprintf(w, "; next page: --cursor %q", r.NextCursor) // %q escapes every unprintable rune
		}
		fmt.Fprintln(w, ")")
	case *abi.TemplatesResult:
		for _, t := range r.ResourceTemplates {
			fmt.Fprintf(w, "%s\t%s\t%s\n", s(t.URITemplate), s(t.Name), s(t.Description))
		}
		if r.NextCursor != "" {
			fmt.Fprintf(w, "(next page: --cursor %q)\n", r.NextCursor)
		}
	case *abi.ReadResult:
		printContents(w, r.Contents)
	case *abi.CompleteResult:
		for _, v := range r.Values {
			fmt.Fprintln(w, s(v))
		}
		if r.HasMore {
			fmt.Fprintln(w, "(more values exist)")
		}
	case *abi.ChangesResult:
		for _, u := range r.Updated {
			fmt.Fprintln(w, "updated", s(u))
		}
		fmt.Fprintf(w, "listChanged=%v cursor=%q\n", r.ListChanged, r.Cursor)
	}
}

func printContents(w io.Writer, contents []abi.Content) {
	for _, c := range contents {
		if len(contents) > 1 {
			fmt.Fprintf(w, "--- %s (%s)\n", termLine(c.URI, 300), termLine(c.MIMEType, 100))
		}
		switch {
		case c.Text != nil:
			text := termText(*c.Text)
			fmt.Fprint(w, text)
			if !strings.HasSuffix(text, "\n") {
				fmt.Fprintln(w)
			}
		case c.Blob != nil:
			n := base64.StdEncoding.DecodedLen(len(*c.Blob))
			fmt.Fprintf(w, "(blob, about %d bytes, %s; use --json for the base64)\n", n, termLine(c.MIMEType, 100))
		}
	}
}
