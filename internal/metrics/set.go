package metrics

import (
	"net/http"
	"slices"
	"sync"
	"time"
)

// LatencyBuckets are the upper bounds, in seconds, of every latency
// histogram: 100µs to 10s, roughly 1-2.5-5 per decade.
var LatencyBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// ProviderStats is what a provider reports at scrape time: the runtime's
// cumulative counters and current gauges (see runtime.Stats).
type ProviderStats struct {
	PoolSize     int    // configured maximum of instances
	Live         int    // instances that exist now
	Instantiated uint64 // instances created, including replacements
	MemoryHigh   uint64 // largest linear memory seen after a call, bytes
	Quarantined  bool   // refusing calls now
	Quarantines  int    // times quarantined
	CacheHits    uint64 // reads answered from the host's read cache
	CacheMisses  uint64 // reads that ran the guest while the cache was on
}

// Set is mcp-wasm's metric families on one registry: per provider and
// operation (fed by the runtime through ProviderCall and PoolWait, and by
// WatchProviders at scrape time) and per transport (fed by the server
// through Transport). It is safe for concurrent use.
type Set struct {
	reg *Registry

	calls, errs *CounterVec
	duration    *HistogramVec
	poolWait    *HistogramVec

	requests      *CounterVec
	reqDuration   *HistogramVec
	sessions      *GaugeVec
	sessionsTotal *CounterVec
	streams       *GaugeVec
	notifications *CounterVec
	laggards      *CounterVec
	httpResponses *CounterVec
	denials       *CounterVec

	mu        sync.Mutex
	providers func() map[string]ProviderStats
}

// NewSet registers mcp-wasm's families on a new registry.
func NewSet() *Set {
	r := NewRegistry()
	s := &Set{reg: r}
	s.calls = r.Counter("mcpwasm_provider_calls_total", "Provider calls, by provider and operation.", "provider", "op")
	s.errs = r.Counter("mcpwasm_provider_errors_total",
		"Failed provider calls, by kind: not_found, invalid_params, provider_internal (domain errors); timeout, memory, trap, abi_violation, output_too_large (faults); unsupported, quarantined, bad_input, closed (refusals).",
		"provider", "op", "kind")
	s.duration = r.Histogram("mcpwasm_provider_call_duration_seconds", "Provider call latency, including the wait for an instance.", LatencyBuckets, "provider", "op")
	s.poolWait = r.Histogram("mcpwasm_provider_pool_wait_seconds", "Time a call waited for a pool instance and a global slot (including creating an instance).", LatencyBuckets, "provider")
	s.registerProviderFuncs()
	s.requests = r.Counter("mcpwasm_transport_requests_total", "MCP messages received, by transport, method and outcome (ok or the JSON-RPC error code).", "transport", "method", "outcome")
	s.reqDuration = r.Histogram("mcpwasm_transport_request_duration_seconds", "MCP request handling latency.", LatencyBuckets, "transport", "method")
	s.sessions = r.Gauge("mcpwasm_transport_sessions", "Open MCP sessions (initialize-handshake revisions).", "transport")
	s.sessionsTotal = r.Counter("mcpwasm_transport_sessions_total", "MCP sessions opened.", "transport")
	s.streams = r.Gauge("mcpwasm_transport_streams", "Open long-lived server-to-client streams (subscriptions/listen, the HTTP GET stream).", "transport")
	s.notifications = r.Counter("mcpwasm_transport_notifications_total", "Notifications sent to clients, by method.", "transport", "method")
	s.laggards = r.Counter("mcpwasm_transport_laggards_total",
		"Clients that did not keep up with what the server sends them, by reason: write_timeout (a stream closed because its client did not read within the write timeout), queue_full (change notifications dropped from a session's queue).",
		"transport", "reason")
	s.httpResponses = r.Counter("mcpwasm_http_responses_total", "HTTP responses, by status code.", "code")
	s.denials = r.Counter("mcpwasm_access_denials_total",
		"Requests the access rules refused (answered as not found), by transport, provider and method; never by client.", "transport", "provider", "method")
	registerRuntime(r) // process.go
	registerProcess(r)
	return s
}

// registerProviderFuncs registers the families read from WatchProviders'
// stats functions at scrape time.
func (s *Set) registerProviderFuncs() {
	gauge := func(name, help string, v func(ProviderStats) float64) {
		s.reg.GaugeFunc(name, help, func(emit func(float64, ...string)) {
			s.eachProvider(func(n string, st ProviderStats) { emit(v(st), n) })
		}, "provider")
	}
	counter := func(name, help string, v func(ProviderStats) float64) {
		s.reg.CounterFunc(name, help, func(emit func(float64, ...string)) {
			s.eachProvider(func(n string, st ProviderStats) { emit(v(st), n) })
		}, "provider")
	}
	gauge("mcpwasm_provider_pool_size", "Configured maximum of instances in the provider's pool.", func(st ProviderStats) float64 { return float64(st.PoolSize) })
	gauge("mcpwasm_provider_pool_instances", "Instances of the provider that exist now.", func(st ProviderStats) float64 { return float64(st.Live) })
	counter("mcpwasm_provider_instantiations_total", "Instances created, including replacements after faults.", func(st ProviderStats) float64 { return float64(st.Instantiated) })
	gauge("mcpwasm_provider_memory_high_water_bytes", "Largest linear memory of an instance seen after a call.", func(st ProviderStats) float64 { return float64(st.MemoryHigh) })
	gauge("mcpwasm_provider_quarantined", "1 while the provider is quarantined after repeated faults.", func(st ProviderStats) float64 { return b2f(st.Quarantined) })
	counter("mcpwasm_provider_quarantines_total", "Times the provider was quarantined.", func(st ProviderStats) float64 { return float64(st.Quarantines) })
	counter("mcpwasm_provider_read_cache_hits_total", "Reads answered from the host's read cache, without running the guest.", func(st ProviderStats) float64 { return float64(st.CacheHits) })
	counter("mcpwasm_provider_read_cache_misses_total", "Reads that ran the guest while the read cache was on.", func(st ProviderStats) float64 { return float64(st.CacheMisses) })
}

// WatchReadCache makes the metric set read the read cache's size at every
// scrape.
func (s *Set) WatchReadCache(bytes func() int64) {
	s.reg.GaugeFunc("mcpwasm_read_cache_bytes", "What the host's read cache holds, in bytes.", func(emit func(float64, ...string)) {
		emit(float64(bytes()))
	})
}

// WatchListCache makes the metric set read the list cache's size at every
// scrape.
func (s *Set) WatchListCache(bytes func() int64) {
	s.reg.GaugeFunc("mcpwasm_list_cache_bytes", "What the host's list cache holds, in bytes.", func(emit func(float64, ...string)) {
		emit(float64(bytes()))
	})
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// eachProvider calls f with every watched provider's stats, in name order.
func (s *Set) eachProvider(f func(name string, st ProviderStats)) {
	s.mu.Lock()
	stats := s.providers
	s.mu.Unlock()
	if stats == nil {
		return
	}
	all := stats()
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		f(n, all[n])
	}
}

// Registry returns the registry the families live on, to add more.
func (s *Set) Registry() *Registry { return s.reg }

// Handler serves the families in the text exposition format; serve it at
// /metrics.
func (s *Set) Handler() http.Handler { return s.reg.Handler() }

// WatchProviders sets the function read at every scrape for the pool,
// memory and quarantine families: it returns the stats of every provider
// served now, by name, so providers swapped by a reload are followed.
// It replaces the function set before; nil reports no provider.
func (s *Set) WatchProviders(stats func() map[string]ProviderStats) {
	s.mu.Lock()
	s.providers = stats
	s.mu.Unlock()
}

// ProviderCall records one finished provider call; kind is "" on success.
// It makes *Set a runtime.Observer.
func (s *Set) ProviderCall(provider, op, kind string, d time.Duration) {
	s.calls.With(provider, op).Inc()
	if kind != "" {
		s.errs.With(provider, op, kind).Inc()
	}
	s.duration.With(provider, op).Observe(d.Seconds())
}

// PoolWait records how long a call waited for an instance.
func (s *Set) PoolWait(provider string, d time.Duration) {
	s.poolWait.With(provider).Observe(d.Seconds())
}

// Transport is the families of one transport ("stdio", "http"). It makes
// a server.Observer.
type Transport struct {
	s    *Set
	name string
}

// Transport returns the recorder of the named transport.
func (s *Set) Transport(name string) *Transport { return &Transport{s: s, name: name} }

// Request records one handled message: outcome is "ok" or an error code.
func (t *Transport) Request(method, outcome string, d time.Duration) {
	t.s.requests.With(t.name, method, outcome).Inc()
	t.s.reqDuration.With(t.name, method).Observe(d.Seconds())
}

// Notification records one notification sent to a client.
func (t *Transport) Notification(method string) {
	t.s.notifications.With(t.name, method).Inc()
}

// Denied records a request the access rules refused
// (server.Denials).
func (t *Transport) Denied(provider, method string) {
	t.s.denials.With(t.name, provider, method).Inc()
}

// Laggard records a client that did not keep up (server.LaggardObserver):
// reason is write_timeout or queue_full.
func (t *Transport) Laggard(reason string) {
	t.s.laggards.With(t.name, reason).Inc()
}

// Session records a session opened (delta 1) or closed (delta -1).
func (t *Transport) Session(delta int) {
	if delta > 0 {
		t.s.sessionsTotal.With(t.name).Add(float64(delta))
	}
	t.s.sessions.With(t.name).Add(float64(delta))
}

// Stream records a long-lived stream opened (delta 1) or closed (delta -1).
func (t *Transport) Stream(delta int) {
	t.s.streams.With(t.name).Add(float64(delta))
}
