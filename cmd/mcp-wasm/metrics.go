package main

import (
	"github.com/mcp-wasm/mcp-wasm/internal/metrics"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/served"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// The metric set feeds on both layers without either importing it.
var (
	_ runtime.Observer       = (*metrics.Set)(nil)
	_ server.Observer        = (*metrics.Transport)(nil)
	_ server.LaggardObserver = (*metrics.Transport)(nil)
	_ server.Denials         = (*metrics.Transport)(nil)
)

// metricsPath is where serve --http serves the Prometheus exposition.
const metricsPath = "/metrics"

// watchSet makes the metric set read, at every scrape, the pool, memory
// and quarantine stats of the providers the set serves at that moment (so
// a reload is followed), under the names the server knows them by.
func watchSet(m *metrics.Set, set *served.Set) {
	m.WatchProviders(func() map[string]metrics.ProviderStats {
		out := map[string]metrics.ProviderStats{}
		for _, p := range set.Providers() {
			out[p.Name()] = providerStats(p.Stats())
		}
		return out
	})
}

// providerStats is a served provider's snapshot as the metric set wants it.
func providerStats(st served.Stats) metrics.ProviderStats {
	return metrics.ProviderStats{
		PoolSize:     st.PoolSize,
		Live:         st.Live,
		Instantiated: st.Instantiated,
		MemoryHigh:   uint64(st.MemoryHigh),
		Quarantined:  st.Quarantined,
		Quarantines:  st.Quarantines,
		CacheHits:    st.CacheHits,
		CacheMisses:  st.CacheMisses,
	}
}

// withMetrics serves the metric set at GET /metrics beside /mcp (outside
// authentication and the rate limit, like /healthz: it is for the
// operator's scraper; on a loopback connection behind the Host/Origin
// guard, since it names providers) and counts every /mcp response and
// legacy GET stream as the "http" transport.
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

// instrument makes m follow the served set and, on HTTP, serves m at
// /metrics and counts responses. Over stdio nothing serves the metrics.
func (t *transport) instrument(m *metrics.Set, set *served.Set) {
	watchSet(m, set)
	if t.addr != "" {
		t.cfg = withMetrics(t.cfg, m)
	}
}
