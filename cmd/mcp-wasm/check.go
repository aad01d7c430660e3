package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/abi/checkkit"
	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/served"
)

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "run the provider author's test battery against a module",
		ArgsUsage: "MODULE.wasm|oci://REF",
		Description: "Loads the module with the limits and grants given, exactly as serve would, and drives\n" +
			"it through every operation it declares: describe is valid and matches the exports; every\n" +
			"declared operation answers; list pages terminate, never repeat a resource, and every listed\n" +
			"URI reads; templates parse and their completions give values that read; a URI that names\n" +
			"nothing is not_found; contents match their declared mimeType and size; results are the\n" +
			"same on a fresh instance; change-feed cursors behave; time and memory per call stay well\n" +
			"under the limits. Each failure says what was done, why it is wrong and how to fix it.\n" +
			"Faults do not quarantine the provider here: each is reported where it happened.\n" +
			"Exits 1 when a check fails. --json prints the report for CI.",
		Flags: append(limitFlags(),
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			&cli.IntFlag{Name: "max-pages", Value: 1000, Usage: "pages of list (and of templates) after which a listing counts as endless"},
			&cli.IntFlag{Name: "max-reads", Value: 1000, Usage: "reads of listed resources and template expansions, at most"},
		),
		Action: checkAction,
	}
}

func checkAction(c *cli.Context) error {
	if err := flagAfterArgs(c, "MODULE.wasm"); err != nil {
		return err
	}
	if c.NArg() != 1 {
		return usageError("check takes one MODULE.wasm or oci:// reference")
	}
	path := c.Args().First()
	spec, rt, loader, err := oneModule(c, path)
	if err != nil {
		return err
	}
	defer rt.Close(c.Context)
	rep := checkModule(c.Context, rt, loader, spec, checkkit.Options{MaxPages: c.Int("max-pages"), MaxReads: c.Int("max-reads")})
	if c.Bool("json") {
		if err := writeJSON(c.App.Writer, rep); err != nil {
			return failure(err)
		}
	} else {
		printCheck(c.App.Writer, path, rep)
	}
	if !rep.Passed {
		return &exitError{code: 1}
	}
	return nil
}

// checkModule loads spec's module as serve would and runs the battery.
// Quarantine is off (a fault threshold nothing reaches), so that every
// fault is reported by the check that caused it.
func checkModule(ctx context.Context, rt *runtime.Runtime, loader *served.Loader, spec config.Provider, opts checkkit.Options) *checkkit.Report {
	m, err := loader.Resolve(ctx, served.RequestFor(spec))
	if err != nil {
		return checkkit.Failed("read "+string(spec.Module), err, "give the path of a .wasm file, or an oci:// reference that pulls")
	}
	hint := served.ModuleHint(spec.Module)
	cfg := spec.RuntimeConfig().WithQuarantine(1<<30, time.Second, time.Second)
	ins := rt.Inspect(ctx, hint, m.Wasm, cfg)
	if !ins.Valid {
		return checkkit.Failed("load "+string(spec.Module), errors.New(strings.Join(ins.Problems, "; ")),
			"`mcp-wasm inspect` with the same flags shows the module's imports and requests; grant what it requests with the flags serve takes (--allow-dir, --config-value, --allow-http, ...)")
	}
	p, err := rt.Load(ctx, hint, m.Wasm, cfg)
	if err != nil {
		return checkkit.Failed("load "+string(spec.Module), err, "fix what the error names and check again")
	}
	defer p.Close(ctx)
	var fresh freshProvider
	defer fresh.close(ctx)
	return checkkit.Run(ctx, checkkit.Subject{
		Provider: p,
		Fresh: func(ctx context.Context) (checkkit.Provider, error) {
			// One instance per call: recycled after every call it serves.
			return fresh.get(ctx, func() (*runtime.Provider, error) {
				return rt.Load(ctx, hint, m.Wasm, cfg.WithRecycleAfter(1).WithPoolSize(1))
			})
		},
		Exports:     ins.Exports,
		Timeout:     cfg.Timeout(),
		MemoryLimit: spec.Limits.Memory,
		MemoryHigh:  func() uint64 { return uint64(p.Stats().MemoryHigh) },
	}, opts)
}

// freshProvider loads the fresh-instance provider once, on first use.
type freshProvider struct {
	once sync.Once
	p    *runtime.Provider
	err  error
}

func (f *freshProvider) get(ctx context.Context, load func() (*runtime.Provider, error)) (checkkit.Provider, error) {
	f.once.Do(func() { f.p, f.err = load() })
	if f.err != nil {
		return nil, f.err
	}
	return f.p, nil
}

func (f *freshProvider) close(ctx context.Context) {
	if f.p != nil {
		_ = f.p.Close(ctx)
	}
}

// printCheck prints a report for a person; every string a guest chose is
// escaped by termLine.
func printCheck(w io.Writer, path string, r *checkkit.Report) {
	s := func(v string) string { return termLine(v, 600) }
	name := strings.TrimSpace(r.Provider)
	if name == "" {
		name = "provider"
	}
	fmt.Fprintf(w, "checking %s (%s)\n", s(name), s(path))
	skipped := 0
	for _, c := range r.Checks {
		fmt.Fprintf(w, "  %-4s %-10s %s\n", strings.ToUpper(c.Status), c.Name, c.Title)
		if c.Status == checkkit.Skip {
			skipped++
			fmt.Fprintf(w, "       skipped: %s\n", s(c.Reason))
		}
		for _, p := range c.Problems {
			fmt.Fprintf(w, "       %s\n         why: %s\n         fix: %s\n", s(p.What), s(p.Why), s(p.Fix))
		}
		if c.Omitted > 0 {
			fmt.Fprintf(w, "       (%d more problems not shown)\n", c.Omitted)
		}
		for _, n := range c.Notes {
			fmt.Fprintf(w, "       note: %s\n", s(n))
		}
	}
	st := r.Stats
	if st.Calls > 0 {
		fmt.Fprintf(w, "%d calls, %d resources, %d templates, %d reads; slowest %s, %.1f ms", st.Calls, st.Resources, st.Templates, st.Reads, s(st.Slowest), st.SlowestMs)
		if st.TimeoutMs > 0 {
			fmt.Fprintf(w, " (deadline %d ms)", st.TimeoutMs)
		}
		if st.MemoryLimit > 0 {
			fmt.Fprintf(w, "; memory %.1f of %.0f MiB", float64(st.MemoryHigh)/(1<<20), float64(st.MemoryLimit)/(1<<20))
		}
		fmt.Fprintln(w)
	}
	if r.Passed {
		fmt.Fprintf(w, "PASS: %d checks, %d skipped\n", len(r.Checks), skipped)
	} else {
		fmt.Fprintf(w, "FAIL: %d of %d checks failed\n", r.Failures(), len(r.Checks))
	}
}
