package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/guests/conformance/fixtures"
	"github.com/mcp-wasm/mcp-wasm/internal/loadtest"
)

// report is what run writes with --json: the measurement and the server's
// peak RSS.
type report struct {
	Label        string   `json:"label"`
	Clients      int      `json:"clients"`
	Era          string   `json:"era"`
	Seconds      float64  `json:"seconds"`
	Requests     int      `json:"requests"`
	Errors       int      `json:"errors"`
	ErrorSamples []string `json:"errorSamples,omitempty"`
	PerSecond    float64  `json:"perSecond"`
	P50Ms        float64  `json:"p50Ms"`
	P90Ms        float64  `json:"p90Ms"`
	P99Ms        float64  `json:"p99Ms"`
	MaxMs        float64  `json:"maxMs"`
	PeakRSSBytes int64    `json:"peakRssBytes,omitempty"`
}

func runCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "read resources from --url with --clients concurrent clients for --duration",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "url", Required: true, Usage: "the server's `URL` (http://127.0.0.1:PORT/mcp)"},
			&cli.IntFlag{Name: "clients", Value: 200, Usage: "concurrent clients, one connection each"},
			&cli.DurationFlag{Name: "duration", Value: 60 * time.Second, Usage: "how long to send reads"},
			&cli.StringSliceFlag{Name: "uri", Usage: "`URI` to read (repeatable; default: the conformance fixtures)"},
			&cli.StringFlag{Name: "era", Value: loadtest.Modern, Usage: "modern (2026-07-28, stateless) or legacy (2025-11-25 sessions)"},
			&cli.DurationFlag{Name: "timeout", Value: 10 * time.Second, Usage: "per request"},
			&cli.IntFlag{Name: "pid", Usage: "server `PID` whose peak RSS (/proc/PID/status VmHWM) to report"},
			&cli.StringFlag{Name: "label", Usage: "name of this run in the report"},
			&cli.StringFlag{Name: "json", Usage: "also write the report to `FILE`"},
		},
		Action: runAction,
	}
}

func runAction(c *cli.Context) error {
	uris := c.StringSlice("uri")
	if len(uris) == 0 {
		uris = []string{fixtures.StaticTextURI, fixtures.StaticBinaryURI, "test://template/123/data", fixtures.WatchedURI}
	}
	res, err := loadtest.Run(c.Context, loadtest.Config{
		URL: c.String("url"), Clients: c.Int("clients"), Duration: c.Duration("duration"),
		URIs: uris, Era: c.String("era"), Timeout: c.Duration("timeout"),
	})
	if err != nil {
		return err
	}
	rep := newReport(c.String("label"), res)
	if pid := c.Int("pid"); pid > 0 {
		if rep.PeakRSSBytes, err = loadtest.PeakRSS(pid); err != nil {
			return err
		}
	}
	fmt.Fprintf(c.App.Writer, "%s: %s, server peak RSS %.1f MiB\n", rep.Label, res, float64(rep.PeakRSSBytes)/(1<<20))
	for _, s := range res.Samples {
		fmt.Fprintln(c.App.Writer, "  error:", s)
	}
	if f := c.String("json"); f != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(f, append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
	}
	if res.Errors > 0 {
		return fmt.Errorf("%d reads failed: a load test passes only with zero errors", res.Errors)
	}
	return nil
}

func newReport(label string, r loadtest.Result) report {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return report{
		Label: label, Clients: r.Clients, Era: r.Era, Seconds: r.Elapsed.Seconds(),
		Requests: r.Requests, Errors: r.Errors, ErrorSamples: r.Samples, PerSecond: r.Throughput,
		P50Ms: ms(r.P50), P90Ms: ms(r.P90), P99Ms: ms(r.P99), MaxMs: ms(r.Max),
	}
}
