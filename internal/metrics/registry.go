// Package metrics is a small Prometheus registry written on the standard
// library: counters, gauges and fixed-bucket histograms with labels, values
// read at scrape time, and the text exposition format (version 0.0.4) served
// by Registry.Handler. Set defines mcp-wasm's own metric families on it.
//
// It refuses what would let a client grow memory without bound: a family
// holds at most MaxSeries label combinations, and the observations past that
// are folded into one series whose labels are all "_overflow". It has no
// push gateway, no summaries, no exemplars and no protobuf format.
package metrics

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// MaxSeries is the most label combinations one family holds.
const MaxSeries = 1000

// overflowLabel is the label value of the series that absorbs observations
// past MaxSeries.
const overflowLabel = "_overflow"

var (
	nameRE  = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelRE = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

// kind is a family's Prometheus type.
type kind string

const (
	kindCounter   kind = "counter"
	kindGauge     kind = "gauge"
	kindHistogram kind = "histogram"
)

// Registry holds metric families and writes them in the text format. It is
// safe for concurrent use; the zero value is not usable, call NewRegistry.
type Registry struct {
	mu       sync.Mutex
	families []*family
	names    map[string]bool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{names: map[string]bool{}} }

// family is one metric name with its series.
type family struct {
	name, help string
	kind       kind
	labels     []string
	buckets    []float64 // histograms only: upper bounds, ascending, no +Inf
	collect    func(emit func(v float64, labelValues ...string))

	mu     sync.RWMutex
	series map[string]*series
}

// series is one label combination: a float value, or histogram counts.
type series struct {
	labelValues []string
	bits        atomic.Uint64   // counter or gauge value, math.Float64bits
	counts      []atomic.Uint64 // histogram: per bucket, last one is +Inf
	sumBits     atomic.Uint64   // histogram sum, math.Float64bits
}

// register adds a family; it panics on an invalid or duplicate name, which
// is a bug in the caller, never something a client controls.
func (r *Registry) register(f *family) *family {
	if !nameRE.MatchString(f.name) {
		panic(fmt.Sprintf("metrics: invalid metric name %q", f.name))
	}
	for _, l := range f.labels {
		if !labelRE.MatchString(l) || strings.HasPrefix(l, "__") || l == "le" {
			panic(fmt.Sprintf("metrics: invalid label name %q on %s", l, f.name))
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.names[f.name] {
		panic(fmt.Sprintf("metrics: %s registered twice", f.name))
	}
	r.names[f.name] = true
	f.series = map[string]*series{}
	r.families = append(r.families, f)
	return f
}

// get returns the series for labelValues, creating it if needed.
func (f *family) get(labelValues []string) *series {
	if len(labelValues) != len(f.labels) {
		panic(fmt.Sprintf("metrics: %s takes %d label values, got %d", f.name, len(f.labels), len(labelValues)))
	}
	key := strings.Join(labelValues, "\xff")
	f.mu.RLock()
	s := f.series[key]
	f.mu.RUnlock()
	if s != nil {
		return s
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if s = f.series[key]; s != nil {
		return s
	}
	if len(f.series) >= MaxSeries {
		labelValues = slices.Repeat([]string{overflowLabel}, len(f.labels))
		key = strings.Join(labelValues, "\xff")
		if s = f.series[key]; s != nil {
			return s
		}
	}
	s = &series{labelValues: slices.Clone(labelValues)}
	if f.kind == kindHistogram {
		s.counts = make([]atomic.Uint64, len(f.buckets)+1)
	}
	f.series[key] = s
	return s
}

// addFloat adds d to the float64 stored in bits.
func addFloat(bits *atomic.Uint64, d float64) {
	for {
		old := bits.Load()
		if bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+d)) {
			return
		}
	}
}

// Counter is one counter series: a value that only goes up.
type Counter struct{ s *series }

// Add adds d, which must not be negative (a negative d is ignored).
func (c Counter) Add(d float64) {
	if d > 0 {
		addFloat(&c.s.bits, d)
	}
}

// Inc adds 1.
func (c Counter) Inc() { addFloat(&c.s.bits, 1) }

// Value returns the current value.
func (c Counter) Value() float64 { return math.Float64frombits(c.s.bits.Load()) }

// CounterVec is a counter family with labels.
type CounterVec struct{ f *family }

// Counter registers a counter family; its name should end in _total.
func (r *Registry) Counter(name, help string, labels ...string) *CounterVec {
	return &CounterVec{r.register(&family{name: name, help: help, kind: kindCounter, labels: labels})}
}

// With returns the series for the label values, in the family's label order.
func (v *CounterVec) With(labelValues ...string) Counter { return Counter{v.f.get(labelValues)} }

// Gauge is one gauge series: a value that goes up and down.
type Gauge struct{ s *series }

// Set sets the value.
func (g Gauge) Set(v float64) { g.s.bits.Store(math.Float64bits(v)) }

// Add adds d (negative to subtract).
func (g Gauge) Add(d float64) { addFloat(&g.s.bits, d) }

// Value returns the current value.
func (g Gauge) Value() float64 { return math.Float64frombits(g.s.bits.Load()) }

// GaugeVec is a gauge family with labels.
type GaugeVec struct{ f *family }

// Gauge registers a gauge family.
func (r *Registry) Gauge(name, help string, labels ...string) *GaugeVec {
	return &GaugeVec{r.register(&family{name: name, help: help, kind: kindGauge, labels: labels})}
}

// With returns the series for the label values, in the family's label order.
func (v *GaugeVec) With(labelValues ...string) Gauge { return Gauge{v.f.get(labelValues)} }

// Histogram is one histogram series.
type Histogram struct {
	s       *series
	buckets []float64
}

// Observe records one value. NaN is ignored.
func (h Histogram) Observe(v float64) {
	if math.IsNaN(v) {
		return
	}
	i, _ := slices.BinarySearch(h.buckets, v) // first bound >= v; len = +Inf
	h.s.counts[i].Add(1)
	addFloat(&h.s.sumBits, v)
}

// Count returns the number of observations.
func (h Histogram) Count() uint64 {
	var n uint64
	for i := range h.s.counts {
		n += h.s.counts[i].Load()
	}
	return n
}

// HistogramVec is a histogram family with labels and fixed buckets.
type HistogramVec struct{ f *family }

// Histogram registers a histogram family with the given upper bounds, which
// must be ascending and finite (+Inf is implied).
func (r *Registry) Histogram(name, help string, buckets []float64, labels ...string) *HistogramVec {
	if len(buckets) == 0 || !slices.IsSorted(buckets) || slices.ContainsFunc(buckets, func(b float64) bool { return math.IsInf(b, 0) || math.IsNaN(b) }) {
		panic(fmt.Sprintf("metrics: %s buckets must be ascending and finite", name))
	}
	return &HistogramVec{r.register(&family{name: name, help: help, kind: kindHistogram, labels: labels, buckets: slices.Clone(buckets)})}
}

// With returns the series for the label values, in the family's label order.
func (v *HistogramVec) With(labelValues ...string) Histogram {
	return Histogram{v.f.get(labelValues), v.f.buckets}
}

// CounterFunc registers a counter family whose values are read at scrape
// time: collect calls emit once per series, for a source that already keeps
// a cumulative count.
func (r *Registry) CounterFunc(name, help string, collect func(emit func(v float64, labelValues ...string)), labels ...string) {
	r.register(&family{name: name, help: help, kind: kindCounter, labels: labels, collect: collect})
}

// GaugeFunc registers a gauge family whose values are read at scrape time.
func (r *Registry) GaugeFunc(name, help string, collect func(emit func(v float64, labelValues ...string)), labels ...string) {
	r.register(&family{name: name, help: help, kind: kindGauge, labels: labels, collect: collect})
}
