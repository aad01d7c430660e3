package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/internal/testlog"
)

var servingRE = regexp.MustCompile(`serving MCP on (\S+)`)

// TestServeNativeThenRun serves the native fixtures, loads them for a
// moment in both eras, and checks the JSON report.
func TestServeNativeThenRun(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	stderr := &testlog.Buffer{}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"mcp-wasm-load", "serve-native"}, io.Discard, stderr) }()
	var url string
	require.Eventually(t, func() bool {
		m := servingRE.FindStringSubmatch(stderr.String())
		if m != nil {
			url = m[1]
		}
		return m != nil
	}, testkit.Wait, 10*time.Millisecond)

	for _, era := range []string{"modern", "legacy"} {
		out := filepath.Join(t.TempDir(), era+".json")
		var stdout bytes.Buffer
		code := run(t.Context(), []string{"mcp-wasm-load", "run", "--url", url, "--clients", "4", "--duration", "300ms",
			"--era", era, "--label", "native-" + era, "--pid", strconv.Itoa(os.Getpid()), "--json", out}, &stdout, io.Discard)
		require.Equal(t, 0, code, stdout.String())
		require.True(t, strings.HasPrefix(stdout.String(), "native-"+era+": 4 "+era+" clients"), stdout.String())
		var rep report
		b, err := os.ReadFile(out)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &rep))
		require.Zero(t, rep.Errors)
		require.Positive(t, rep.Requests)
		require.Positive(t, rep.PeakRSSBytes)
		require.LessOrEqual(t, rep.P50Ms, rep.P99Ms)
	}
	cancel()
	require.Equal(t, 0, <-done, stderr.String())
}

func TestTable(t *testing.T) {
	f := filepath.Join(t.TempDir(), "r.json")
	b, _ := json.Marshal(report{Label: "wasm", Clients: 200, Era: "modern", Seconds: 60, Requests: 1200, PerSecond: 20,
		P50Ms: 1.5, P90Ms: 2, P99Ms: 3.25, MaxMs: 9, PeakRSSBytes: 3 << 20})
	require.NoError(t, os.WriteFile(f, b, 0o644))
	var stdout bytes.Buffer
	require.Equal(t, 0, run(t.Context(), []string{"mcp-wasm-load", "table", f}, &stdout, io.Discard))
	require.Contains(t, stdout.String(), "| wasm | 200 | modern | 60.0 | 1200 | 20 | 1.50 | 2.00 | 3.25 | 9.00 | 0 | 3.0 |")
	require.Equal(t, 1, run(t.Context(), []string{"mcp-wasm-load", "table"}, io.Discard, io.Discard))
}

func TestRunFailsOnErrors(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"mcp-wasm-load", "run", "--url", "http://10.9.8.7:1/mcp", "--duration", "10ms"}, &stdout, &stderr)
	require.Equal(t, 1, code)
	require.Contains(t, stderr.String(), "not on a loopback address")
}

// TestFiles runs the side-by-side measurement once, small, through the
// real binary and the native anchor, and checks each row is a measurement.
func TestFiles(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"mcp-wasm-load", "files", "--bin", testguest.Binary(t), "--only", "read1k,list1k",
		"--rounds", "1", "--scale", "0.01"}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	rows := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n")[1:] {
		f := strings.Fields(line)
		require.GreaterOrEqual(t, len(f), 8, line)
		rows[f[0]+" "+f[1]] = true
		ratio, err := strconv.ParseFloat(f[5], 64)
		require.NoError(t, err, line)
		require.Positive(t, ratio, line)
	}
	require.Equal(t, map[string]bool{"read1k native": true, "read1k wasm": true, "read1k wasm+cache": true,
		"list1k native": true, "list1k wasm": true}, rows, stdout.String())
}

// TestMain lets `files` start this test binary as its native anchor, as it
// starts its own executable outside tests.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "serve-files-native" {
		os.Exit(run(context.Background(), append([]string{"mcp-wasm-load"}, os.Args[1:]...), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestPairedRatios: ratios are taken round by round against the anchor,
// so a drift that moves both in a round cancels; throughput inverts them.
func TestPairedRatios(t *testing.T) {
	us := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Microsecond
		}
		return out
	}
	// The machine slows down threefold over the run; each round, the
	// server costs 1.2 times the anchor.
	anchor := us(100, 150, 200, 250, 300)
	server := us(120, 180, 240, 300, 360)
	r := pairedRatios(server, anchor, false)
	require.InDelta(t, 1.2, r.median, 1e-9)
	require.InDelta(t, 1.2, r.lo, 1e-9)
	require.InDelta(t, 1.2, r.hi, 1e-9)
	require.InDelta(t, 1/1.2, pairedRatios(server, anchor, true).median, 1e-9)

	r = pairedRatios(us(110, 120, 130, 140, 500), us(100, 100, 100, 100, 100), false)
	require.Equal(t, "1.30 (1.20-1.40)", r.String(), "median and quartiles; one outlier moves neither")
}
