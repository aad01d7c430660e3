package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/guests/files/filesprov"
	"github.com/mcp-wasm/mcp-wasm/internal/gctune"
	"github.com/mcp-wasm/mcp-wasm/internal/loadtest"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// The default provider against a native server, side by side (issue 10's
// targets): the same directory served by `mcp-wasm serve --allow-dir D`
// and by this program's serve-files-native (the Go files provider compiled
// natively into the same MCP server, with the same collector settings),
// both over stdio to an official go-sdk client reading sequentially. Each
// round runs every server once, in a rotating order; the figures are
// medians, and ratios are paired within rounds (pairedRatios).

func serveFilesNativeCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve-files-native",
		Usage: "serve DIR's files over stdio with the Go files provider compiled natively (the anchor of `files`)",
		Flags: []cli.Flag{&cli.StringFlag{Name: "dir", Required: true, Usage: "`DIR` to serve"}},
		Action: func(c *cli.Context) error {
			gctune.Apply() // as mcp-wasm serve does
			dir, err := filepath.Abs(c.String("dir"))
			if err != nil {
				return err
			}
			native, err := nativeFiles(dir)
			if err != nil {
				return err
			}
			srv, err := server.New(server.NewConfig().WithProviders(native).WithAuditLogger(slog.New(slog.DiscardHandler)).
				WithLogger(slog.New(slog.NewTextHandler(c.App.ErrWriter, &slog.HandlerOptions{Level: slog.LevelWarn}))))
			if err != nil {
				return err
			}
			return srv.ServeStdio(c.Context, os.Stdin, os.Stdout)
		},
	}
}

// nativeFiles is the Go files provider over dir, natively, naming files
// by their real paths as the default provider does.
func nativeFiles(dir string) (*loadtest.Native, error) {
	root, err := filesprov.DirRoot(dir)
	if err != nil {
		return nil, err
	}
	return loadtest.NewNative(filesprov.New(root)), nil
}

func filesCommand() *cli.Command {
	return &cli.Command{
		Name:  "files",
		Usage: "measure the default provider against a native server serving the same directory, over stdio",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "bin", Value: "build/mcp-wasm", Usage: "the mcp-wasm binary"},
			&cli.IntFlag{Name: "rounds", Value: 11, Usage: "rounds per measurement, each running every server once in a rotating order"},
			&cli.StringFlag{Name: "only", Usage: "comma-separated scenarios to run (read1k, read64k, read1m, list1k, list10k, list100k)"},
			&cli.StringFlag{Name: "protocol", Value: "2025-11-25", Usage: "the client's protocol `REVISION`: on 2026-07-28 the go-sdk client answers repeated reads and lists from its own cache while the result's ttlMs lasts, and the server is not asked"},
			&cli.Float64Flag{Name: "scale", Value: 1, Usage: "multiply the reads per round by `F` (a quick look: 0.05)"},
		},
		Action: filesAction,
	}
}

// scenario is one measurement: a tree and what a round does.
type scenario struct {
	name   string
	build  func(dir string) error
	reads  int    // reads of uri per round; 0 for listings
	uri    string // relative path of the file read
	lists  int    // full listings per round
	cached bool   // also measure with the read cache on
}

func filesAction(c *cli.Context) error {
	scenarios := []scenario{
		{name: "read1k", build: oneFile(1 << 10), reads: 2000, uri: "f", cached: true},
		{name: "read64k", build: oneFile(64 << 10), reads: 500, uri: "f"},
		{name: "read1m", build: oneFile(1 << 20), reads: 50, uri: "f"},
		{name: "list1k", build: manyFiles(1_000), lists: 10},
		{name: "list10k", build: manyFiles(10_000), lists: 3},
		{name: "list100k", build: manyFiles(100_000), lists: 1},
	}
	if f := c.Float64("scale"); f != 1 {
		if f <= 0 || f > 100 {
			return fmt.Errorf("--scale %g: use a factor in (0, 100]", f)
		}
		for i := range scenarios {
			if scenarios[i].reads > 0 {
				scenarios[i].reads = max(1, int(float64(scenarios[i].reads)*f))
			}
		}
	}
	if only := c.String("only"); only != "" {
		scenarios = slices.DeleteFunc(scenarios, func(s scenario) bool { return !slices.Contains(strings.Split(only, ","), s.name) })
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "scenario\tserver\tCPU/op\twall/op\tops/s\tCPU ratio (quartiles)\tthroughput ratio (quartiles)\tidle RSS\n")
	for _, s := range scenarios {
		dir, err := os.MkdirTemp("", "mcp-wasm-files-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if err := s.build(dir); err != nil {
			return err
		}
		servers := []namedCmd{
			{"native", []string{self, "serve-files-native", "--dir", dir}},
			{"wasm", []string{c.String("bin"), "serve", "--allow-dir", dir, "--read-cache", "0", "--log-level", "error"}},
		}
		if s.cached {
			servers = append(servers, namedCmd{"wasm+cache", []string{c.String("bin"), "serve", "--allow-dir", dir, "--log-level", "error"}})
		}
		res, err := measure(c.Context, s, dir, servers, c.Int("rounds"), c.String("protocol"))
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		native := res[0]
		for _, r := range res {
			cpu := pairedRatios(r.cpus, native.cpus, false)
			tput := pairedRatios(r.walls, native.walls, true)
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%.0f\t%s\t%s\t%.1f MiB\n", s.name, r.name, r.cpu, r.wall, 1/r.wall.Seconds(),
				cpu, tput, float64(r.rss)/(1<<20))
		}
	}
	return w.Flush()
}

type namedCmd struct {
	name string
	argv []string
}

type result struct {
	name        string
	cpu, wall   time.Duration   // medians per operation
	cpus, walls []time.Duration // per operation, round by round
	rss         int64           // resident set size when idle, after warming up
}

// ratioSpread is the median and the quartiles of round-by-round ratios.
type ratioSpread struct{ median, lo, hi float64 }

func (r ratioSpread) String() string { return fmt.Sprintf("%.2f (%.2f-%.2f)", r.median, r.lo, r.hi) }

// pairedRatios divides each round's figure by the anchor's in the same
// round (inverted: the anchor's by this one's, for throughput from wall
// time) and returns the median and quartiles of those ratios. Pairing
// rounds cancels the drift of a shared machine between rounds, which
// moves every server's absolute figures by ±15 % here: a ratio of medians
// taken over the whole run would carry it.
func pairedRatios(xs, anchor []time.Duration, inverted bool) ratioSpread {
	rs := make([]float64, len(xs))
	for i := range xs {
		rs[i] = xs[i].Seconds() / anchor[i].Seconds()
		if inverted {
			rs[i] = 1 / rs[i]
		}
	}
	slices.Sort(rs)
	q := func(p float64) float64 { return rs[int(p*float64(len(rs)-1)+0.5)] }
	return ratioSpread{median: q(0.5), lo: q(0.25), hi: q(0.75)}
}

// measure starts every server, warms each up, then alternates rounds.
func measure(ctx context.Context, s scenario, dir string, servers []namedCmd, rounds int, protocol string) ([]result, error) {
	type running struct {
		cs   *mcp.ClientSession
		uri  string // of the file read
		pid  int
		cpus []time.Duration
		wall []time.Duration
	}
	var rs []*running
	defer func() {
		for _, r := range rs {
			_ = r.cs.Close()
		}
	}()
	for _, sv := range servers {
		cmd := exec.CommandContext(ctx, sv.argv[0], sv.argv[1:]...)
		cmd.Stderr = os.Stderr
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "files-bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd},
			&mcp.ClientSessionOptions{ProtocolVersion: protocol})
		if err != nil {
			return nil, fmt.Errorf("start %s: %w", sv.name, err)
		}
		rs = append(rs, &running{cs: cs, pid: cmd.Process.Pid})
	}
	for _, r := range rs {
		if s.uri == "" {
			break
		}
		// A file's real path, or its path in the mount for a provider that
		// names files so.
		for _, uri := range []string{"file://" + filepath.ToSlash(filepath.Join(dir, s.uri)), "file:///" + s.uri} {
			if _, err := r.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
				r.uri = uri
				break
			}
		}
		if r.uri == "" {
			return nil, fmt.Errorf("no URI of %s reads", s.uri)
		}
	}
	op := func(r *running) (int, error) {
		if s.reads > 0 {
			for range s.reads {
				if _, err := r.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.uri}); err != nil {
					return 0, err
				}
			}
			return s.reads, nil
		}
		for range s.lists {
			n := 0
			for res, err := range r.cs.Resources(ctx, nil) {
				if err != nil {
					return 0, err
				}
				_ = res
				n++
			}
			if n == 0 {
				return 0, fmt.Errorf("empty listing")
			}
		}
		return s.lists, nil
	}
	for _, r := range rs { // warm up: caches, instances, the heap
		if _, err := op(r); err != nil {
			return nil, err
		}
	}
	out := make([]result, len(rs))
	for i, r := range rs {
		rss, _ := loadtest.RSS(r.pid)
		out[i] = result{name: servers[i].name, rss: rss}
	}
	for round := range rounds {
		// Each round starts with another server, so that none always
		// runs right after the same one.
		for k := range rs {
			r := rs[(k+round)%len(rs)]
			cpu0, err := processCPU(r.pid)
			if err != nil {
				return nil, err
			}
			start := time.Now()
			n, err := op(r)
			if err != nil {
				return nil, err
			}
			wall := time.Since(start)
			cpu1, _ := processCPU(r.pid)
			r.cpus = append(r.cpus, (cpu1-cpu0)/time.Duration(n))
			r.wall = append(r.wall, wall/time.Duration(n))
		}
	}
	for i, r := range rs {
		out[i].cpu, out[i].wall = median(r.cpus), median(r.wall)
		out[i].cpus, out[i].walls = r.cpus, r.wall
	}
	return out, nil
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// processCPU is the CPU time every thread of a process has used, in
// nanoseconds (schedstat).
func processCPU(pid int) (time.Duration, error) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return 0, fmt.Errorf("process CPU: %w (Linux /proc only)", err)
	}
	var total time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
		if err != nil {
			continue // the thread ended
		}
		ns, err := strconv.ParseInt(strings.Fields(string(b))[0], 10, 64)
		if err != nil {
			return 0, err
		}
		total += time.Duration(ns)
	}
	return total, nil
}

func oneFile(size int) func(string) error {
	return func(dir string) error {
		b := []byte(strings.Repeat("abcdefghijklmno\n", size/16))
		return os.WriteFile(filepath.Join(dir, "f"), b[:size], 0o644)
	}
}

func manyFiles(n int) func(string) error {
	return func(dir string) error {
		for i := range n {
			sub := filepath.Join(dir, fmt.Sprintf("d%03d", i/1000))
			if err := os.MkdirAll(sub, 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%05d.txt", i)), []byte("x\n"), 0o644); err != nil {
				return err
			}
		}
		return nil
	}
}
