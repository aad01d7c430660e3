package metrics

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func scrape(t *testing.T, r *Registry) (string, *Exposition) {
	t.Helper()
	var b strings.Builder
	require.NoError(t, r.WriteText(&b))
	e, err := ParseText(strings.NewReader(b.String()))
	require.NoError(t, err, "exposition:\n%s", b.String())
	return b.String(), e
}

func TestWriteTextGolden(t *testing.T) {
	r := NewRegistry()
	c := r.Counter("x_total", "Things.\nSecond line \\ here.", "a", "b")
	c.With("1", `q"uo\te`+"\n").Add(2.5)
	c.With("0", "z").Inc()
	g := r.Gauge("y", "A gauge.")
	g.With().Set(-3)
	h := r.Histogram("z_seconds", "Latency.", []float64{0.1, 1}, "op")
	h.With("read").Observe(0.1)
	h.With("read").Observe(0.5)
	h.With("read").Observe(7)
	r.GaugeFunc("w", "Read at scrape.", func(emit func(float64, ...string)) { emit(math.Inf(1), "p") }, "p")

	text, _ := scrape(t, r)
	require.Equal(t, `# HELP x_total Things.\nSecond line \\ here.
# TYPE x_total counter
x_total{a="0",b="z"} 1
x_total{a="1",b="q\"uo\\te\n"} 2.5
# HELP y A gauge.
# TYPE y gauge
y -3
# HELP z_seconds Latency.
# TYPE z_seconds histogram
z_seconds_bucket{op="read",le="0.1"} 1
z_seconds_bucket{op="read",le="1"} 2
z_seconds_bucket{op="read",le="+Inf"} 3
z_seconds_sum{op="read"} 7.6
z_seconds_count{op="read"} 3
# HELP w Read at scrape.
# TYPE w gauge
w{p="p"} +Inf
`, text)
}

func TestParsedValuesRoundTrip(t *testing.T) {
	r := NewRegistry()
	c := r.Counter("req_total", "h", "m")
	c.With("a\\b\"c\nd").Add(3)
	_, e := scrape(t, r)
	v, ok := e.Value("req_total", "m", "a\\b\"c\nd")
	require.True(t, ok)
	require.Equal(t, 3.0, v)
}

func TestCounterIgnoresNegative(t *testing.T) {
	r := NewRegistry()
	c := r.Counter("c_total", "h").With()
	c.Add(-1)
	c.Add(2)
	require.Equal(t, 2.0, c.Value())
}

func TestHistogramIgnoresNaN(t *testing.T) {
	r := NewRegistry()
	h := r.Histogram("h", "h", []float64{1}).With()
	h.Observe(math.NaN())
	h.Observe(2)
	require.Equal(t, uint64(1), h.Count())
}

func TestSeriesCapFoldsIntoOverflow(t *testing.T) {
	r := NewRegistry()
	c := r.Counter("many_total", "h", "k")
	for i := range MaxSeries + 50 {
		c.With(fmt.Sprint(i)).Inc()
	}
	_, e := scrape(t, r)
	require.Len(t, e.Samples, MaxSeries+1)
	v, ok := e.Value("many_total", "k", overflowLabel)
	require.True(t, ok)
	require.Equal(t, 50.0, v)
}

func TestRegisterRefusesBadNames(t *testing.T) {
	tests := map[string]func(r *Registry){
		"bad name":       func(r *Registry) { r.Counter("1x", "h") },
		"bad label":      func(r *Registry) { r.Gauge("x", "h", "a-b") },
		"reserved label": func(r *Registry) { r.Gauge("x", "h", "__x") },
		"le label":       func(r *Registry) { r.Histogram("x", "h", []float64{1}, "le") },
		"duplicate":      func(r *Registry) { r.Gauge("x", "h"); r.Counter("x", "h") },
		"unsorted":       func(r *Registry) { r.Histogram("x", "h", []float64{2, 1}) },
		"inf bucket":     func(r *Registry) { r.Histogram("x", "h", []float64{1, math.Inf(1)}) },
		"label count":    func(r *Registry) { r.Gauge("x", "h", "a").With() },
	}
	for name, f := range tests {
		t.Run(name, func(t *testing.T) {
			require.Panics(t, func() { f(NewRegistry()) })
		})
	}
}

// TestConcurrentUpdatesAndScrapes hammers one family from many goroutines
// while scraping; every scrape must parse and the totals must add up.
func TestConcurrentUpdatesAndScrapes(t *testing.T) {
	r := NewRegistry()
	c := r.Counter("n_total", "h", "w")
	h := r.Histogram("d", "h", LatencyBuckets, "w")
	const workers, each = 8, 2000
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				c.With(fmt.Sprint(w % 3)).Inc()
				h.With(fmt.Sprint(w % 3)).Observe(float64(i) / 1000)
			}
		})
	}
	for range 20 {
		scrape(t, r)
	}
	wg.Wait()
	_, e := scrape(t, r)
	require.Equal(t, float64(workers*each), e.Sum("n_total"))
	require.Equal(t, float64(workers*each), e.Sum("d_count"))
}
