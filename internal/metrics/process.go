package metrics

import (
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
)

// The go_ and process_ families carry the names and meanings of the
// Prometheus Go client's default collectors (github.com/prometheus/
// client_golang, collectors.NewGoCollector and NewProcessCollector), so the
// dashboards and alerts written for any Go service work unchanged; they are
// read at scrape time from runtime/metrics and, on Linux, /proc/self.
// go_gc_duration_seconds, a summary there, is left out: this registry has
// no summaries, and go_gc_cycles_total with go_gc_pauses_seconds_total
// answer the same question (how much the collector stops the program).

// runtimeSamples names the runtime/metrics samples the go_ families read.
var runtimeSamples = []string{
	"/sched/goroutines:goroutines",
	"/memory/classes/heap/objects:bytes",
	"/gc/heap/allocs:bytes",
	"/memory/classes/total:bytes",
	"/gc/heap/goal:bytes",
	"/gc/cycles/total:gc-cycles",
	"/sched/pauses/total/gc:seconds",
	"/gc/gogc:percent",
	"/gc/gomemlimit:bytes",
}

// registerRuntime registers the go_ families on r.
func registerRuntime(r *Registry) {
	read := func() map[string]metrics.Value {
		samples := make([]metrics.Sample, len(runtimeSamples))
		for i, name := range runtimeSamples {
			samples[i].Name = name
		}
		metrics.Read(samples)
		out := make(map[string]metrics.Value, len(samples))
		for _, s := range samples {
			out[s.Name] = s.Value
		}
		return out
	}
	gauge := func(name, help, sample string) {
		r.GaugeFunc(name, help, func(emit func(float64, ...string)) { emitSample(emit, read()[sample]) })
	}
	counter := func(name, help, sample string) {
		r.CounterFunc(name, help, func(emit func(float64, ...string)) { emitSample(emit, read()[sample]) })
	}
	r.GaugeFunc("go_info", "Information about the Go environment.", func(emit func(float64, ...string)) {
		emit(1, runtime.Version())
	}, "version")
	gauge("go_goroutines", "Number of goroutines that currently exist.", "/sched/goroutines:goroutines")
	r.GaugeFunc("go_threads", "Number of OS threads created.", func(emit func(float64, ...string)) {
		emit(float64(pprof.Lookup("threadcreate").Count()))
	})
	gauge("go_memstats_alloc_bytes", "Number of bytes allocated in heap and currently in use.", "/memory/classes/heap/objects:bytes")
	counter("go_memstats_alloc_bytes_total", "Total number of bytes allocated in heap, even if freed.", "/gc/heap/allocs:bytes")
	gauge("go_memstats_sys_bytes", "Number of bytes obtained from the system by the Go runtime.", "/memory/classes/total:bytes")
	gauge("go_memstats_next_gc_bytes", "Heap size target of the next garbage collection cycle.", "/gc/heap/goal:bytes")
	counter("go_gc_cycles_total", "Garbage collection cycles completed.", "/gc/cycles/total:gc-cycles")
	r.CounterFunc("go_gc_pauses_seconds_total", "Total time the program was stopped for garbage collection.", func(emit func(float64, ...string)) {
		emit(histogramSum(read()["/sched/pauses/total/gc:seconds"]))
	})
	gauge("go_gc_gogc_percent", "Heap growth target of the garbage collector (GOGC; negative when off).", "/gc/gogc:percent")
	gauge("go_gc_gomemlimit_bytes", "Memory limit of the Go runtime (GOMEMLIMIT).", "/gc/gomemlimit:bytes")
}

// emitSample emits one runtime/metrics value; an unsupported sample (a
// name this toolchain does not have) emits nothing.
func emitSample(emit func(float64, ...string), v metrics.Value) {
	switch v.Kind() {
	case metrics.KindUint64:
		emit(float64(v.Uint64()))
	case metrics.KindFloat64:
		emit(v.Float64())
	}
}

// histogramSum estimates the sum of a runtime/metrics histogram from its
// buckets (each count at its bucket's lower bound, so never more than the
// truth): runtime/metrics records no exact sum.
func histogramSum(v metrics.Value) float64 {
	if v.Kind() != metrics.KindFloat64Histogram {
		return 0
	}
	h := v.Float64Histogram()
	var sum float64
	for i, n := range h.Counts {
		if lo := h.Buckets[i]; n > 0 && lo > 0 {
			sum += float64(n) * lo
		}
	}
	return sum
}

// SetBuildInfo registers mcpwasm_build_info, a gauge of 1 whose labels
// say which build runs: the version and VCS revision (internal/buildinfo)
// and the Go toolchain. Call it once.
func (s *Set) SetBuildInfo(version, revision, goVersion string) {
	s.reg.Gauge("mcpwasm_build_info", "A metric with a constant '1' value labeled by the version and VCS revision mcp-wasm was built from, and the Go version that built it.",
		"version", "revision", "goversion").With(version, revision, goVersion).Set(1)
}
