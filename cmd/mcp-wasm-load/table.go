package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"
)

func tableCommand() *cli.Command {
	return &cli.Command{
		Name:      "table",
		Usage:     "print the --json reports of run as a markdown table",
		ArgsUsage: "REPORT.json...",
		Action:    tableAction,
	}
}

func tableAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return fmt.Errorf("give the report files written by run --json")
	}
	w := c.App.Writer
	fmt.Fprintln(w, "| server | clients | era | seconds | reads | reads/s | p50 ms | p90 ms | p99 ms | max ms | errors | peak RSS MiB |")
	fmt.Fprintln(w, "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, f := range c.Args().Slice() {
		b, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("read report: %w", err)
		}
		var r report
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("report %s: %w", f, err)
		}
		fmt.Fprintf(w, "| %s | %d | %s | %.1f | %d | %.0f | %.2f | %.2f | %.2f | %.2f | %d | %.1f |\n",
			r.Label, r.Clients, r.Era, r.Seconds, r.Requests, r.PerSecond, r.P50Ms, r.P90Ms, r.P99Ms, r.MaxMs,
			r.Errors, float64(r.PeakRSSBytes)/(1<<20))
	}
	return nil
}
