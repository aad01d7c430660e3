// Package loadtest is mcp-wasm's HTTP load generator: N concurrent clients
// reading resources from a Streamable HTTP endpoint for a fixed time, each
// on its own keep-alive connection, reporting throughput, latency
// percentiles and every failed read. cmd/mcp-wasm-load and
// scripts/loadtest.sh drive it; docs/performance.md has its results.
//
// It checks every answer (HTTP 200, one JSON-RPC response with no error and
// non-empty contents) so that a fast wrong answer counts as an error, not
// as throughput. It sends only to the URL it is given, stops by itself when
// the duration is over, and refuses a URL that is not on a loopback
// address unless told otherwise.
package loadtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"
)

// Eras a client may speak.
const (
	// Modern is the stateless 2026-07-28 wire: no session, headers per request.
	Modern = "modern"
	// Legacy is 2025-11-25: each client initializes one session first.
	Legacy = "legacy"
)

// Config is one load run.
type Config struct {
	URL      string        // the /mcp endpoint
	Clients  int           // concurrent clients, each with its own connection
	Duration time.Duration // how long clients send reads
	URIs     []string      // read in turn; client i starts at URIs[i%len]
	Era      string        // Modern or Legacy
	Timeout  time.Duration // per request
	// MinReads makes each client read past Duration until it has this
	// many correct reads (a count to wait for, for tests on a loaded
	// machine; 0 for a run that is Duration long).
	MinReads int
	// AnyHost lifts the loopback-only guard on URL.
	AnyHost bool
}

// Result is what a run measured.
type Result struct {
	Clients  int
	Era      string
	Elapsed  time.Duration // from the first request to the last answer
	Requests int           // reads answered correctly
	Errors   int           // reads that failed in any way
	// Samples holds up to maxSamples error messages.
	Samples    []string
	Throughput float64 // correct reads per second
	P50, P90   time.Duration
	P99, Max   time.Duration
}

const maxSamples = 10

func (c Config) validate() error {
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("url %q: give the http://HOST:PORT/mcp endpoint", c.URL)
	}
	if !c.AnyHost && !isLoopback(u.Hostname()) {
		return fmt.Errorf("url %q is not on a loopback address: load tests target this machine only", c.URL)
	}
	switch {
	case c.Clients < 1 || c.Clients > 10000:
		return fmt.Errorf("clients %d: use 1-10000", c.Clients)
	case c.Duration <= 0 || c.Timeout <= 0:
		return errors.New("duration and timeout must be positive")
	case c.MinReads < 0:
		return errors.New("min reads must not be negative")
	case len(c.URIs) == 0:
		return errors.New("no URIs to read: give at least one")
	case c.Era != Modern && c.Era != Legacy:
		return fmt.Errorf("era %q: use %s or %s", c.Era, Modern, Legacy)
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Run runs the load and returns what it measured. It returns early, with
// what was measured so far, if ctx is done.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if err := cfg.validate(); err != nil {
		return Result{}, fmt.Errorf("configuring load: %w", err)
	}
	tr := &http.Transport{
		MaxIdleConns: cfg.Clients, MaxIdleConnsPerHost: cfg.Clients, MaxConnsPerHost: cfg.Clients,
		IdleConnTimeout: time.Minute, DisableCompression: true,
		DialContext: (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
	}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: cfg.Timeout}

	clients := make([]*client, cfg.Clients)
	for i := range clients {
		clients[i] = &client{hc: hc, cfg: cfg, next: i}
	}
	timed, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(func() { c.run(ctx, timed) })
	}
	wg.Wait()
	return summarize(cfg, clients, time.Since(start)), nil
}

// summarize merges the clients' measurements.
func summarize(cfg Config, clients []*client, elapsed time.Duration) Result {
	res := Result{Clients: cfg.Clients, Era: cfg.Era, Elapsed: elapsed}
	var lat []time.Duration
	for _, c := range clients {
		lat = append(lat, c.latencies...)
		res.Errors += c.errors
		for _, s := range c.samples {
			if len(res.Samples) < maxSamples {
				res.Samples = append(res.Samples, s)
			}
		}
	}
	res.Requests = len(lat)
	if elapsed > 0 {
		res.Throughput = float64(res.Requests) / elapsed.Seconds()
	}
	slices.Sort(lat)
	res.P50, res.P90, res.P99 = percentile(lat, 0.50), percentile(lat, 0.90), percentile(lat, 0.99)
	if len(lat) > 0 {
		res.Max = lat[len(lat)-1]
	}
	return res
}

// percentile returns the nearest-rank q-th value of sorted, 0 if empty.
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*q+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// String is a one-line report.
func (r Result) String() string {
	return fmt.Sprintf("%d %s clients, %s: %d reads (%.0f/s), %d errors, latency p50 %s p90 %s p99 %s max %s",
		r.Clients, r.Era, r.Elapsed.Round(time.Millisecond), r.Requests, r.Throughput, r.Errors,
		roundDur(r.P50), roundDur(r.P90), roundDur(r.P99), roundDur(r.Max))
}

func roundDur(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d.Round(10 * time.Microsecond)
}
