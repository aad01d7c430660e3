package main

import (
	"fmt"

	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// printGrants shows each request beside what the operator granted, one
// line each: "kind  requested  ->  granted  (note)". Secret values arrive
// masked from runtime.GrantReport.
func printGrants(row func(k, format string, args ...any), lines []runtime.GrantLine) {
	for i, l := range lines {
		k := ""
		if i == 0 {
			k = "grants"
		}
		req, got := l.Requested, l.Granted
		if req == "" {
			req = "(not requested)"
		}
		if got == "" {
			got = "NOT GRANTED"
		}
		note := ""
		if l.Note != "" {
			note = "  (" + l.Note + ")"
		}
		row(k, "%s", termLine(fmt.Sprintf("%-10s %-32s -> %s%s", l.Kind, req, got, note), 4000))
	}
}
