package main

import (
	"github.com/mcp-wasm/mcp-wasm/internal/metrics"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// The metric set feeds on both layers without either importing it.
var (
	_ runtime.Observer = (*metrics.Set)(nil)
	_ server.Observer  = (*metrics.Transport)(nil)
)

// metricsPath is where serve --http mounts the Prometheus exposition.
const metricsPath = "/metrics"

// watchServer makes the metric set read, at every scrape, the pool, memory
// and quarantine stats of the providers srv serves at that moment (so a
// reload is followed). Providers that are not wasm modules are skipped.
func watchServer(set *metrics.Set, srv *server.Server) {
	set.WatchProviders(func() map[string]metrics.ProviderStats {
		out := map[string]metrics.ProviderStats{}
		for _, sp := range srv.Providers() {
			if p, ok := sp.(*runtime.Provider); ok {
				out[p.Name()] = providerStats(p)
			}
		}
		return out
	})
}

// providerStats is the runtime's snapshot as the metric set wants it.
func providerStats(p *runtime.Provider) metrics.ProviderStats {
	st := p.Stats()
	return metrics.ProviderStats{
		PoolSize:     p.Config().PoolSize(),
		Live:         st.Live,
		Instantiated: st.Instantiated,
		MemoryHigh:   uint64(st.MemoryHigh),
		Quarantined:  st.Quarantined,
		Quarantines:  st.Quarantines,
	}
}

// withMetrics serves the metric set at GET /metrics beside /mcp (outside
// the Host/Origin guard, authentication and rate limit, like /healthz: it
// is for the operator's scraper) and counts every /mcp response and legacy
// GET stream as the "http" transport.
func withMetrics(cfg server.HTTPConfig, set *metrics.Set) server.HTTPConfig {
	return cfg.WithRoute("GET "+metricsPath, set.Handler()).WithMCPMiddleware(set.Transport("http").Wrap)
}

// name is the transport label of serve's metrics.
func (t *transport) name() string {
	if t.addr == "" {
		return "stdio"
	}
	return "http"
}

// instrument makes set follow srv's providers and, on HTTP, serves set at
// /metrics and counts responses. Over stdio nothing serves the metrics.
func (t *transport) instrument(set *metrics.Set, srv *server.Server) {
	watchServer(set, srv)
	if t.addr != "" {
		t.cfg = withMetrics(t.cfg, set)
	}
}
