package metrics

import (
	"fmt"
	"maps"
	"math"
	"strings"
)

// histSeries is one histogram series as parsed: its buckets in order of
// appearance.
type histSeries struct {
	les, counts []float64
}

// checkHistograms checks every histogram series of e: le values ascending
// and ending in +Inf, counts cumulative, +Inf equal to _count, _sum present.
func checkHistograms(e *Exposition) error {
	series := map[string]*histSeries{}
	var order []string
	for _, s := range e.Samples {
		base, ok := strings.CutSuffix(s.Name, "_bucket")
		if !ok || e.Types[base] != "histogram" {
			continue
		}
		le, err := parseValue(s.Labels["le"])
		if _, has := s.Labels["le"]; !has || err != nil {
			return fmt.Errorf("%s: bucket without a valid le", s.Name)
		}
		rest := maps.Clone(s.Labels)
		delete(rest, "le")
		key := seriesKey(base, rest)
		h := series[key]
		if h == nil {
			h = &histSeries{}
			series[key] = h
			order = append(order, key)
		}
		if n := len(h.les); n > 0 && (le <= h.les[n-1] || s.Value < h.counts[n-1]) {
			return fmt.Errorf("%s: buckets not ascending and cumulative at le=%s", s.Name, s.Labels["le"])
		}
		h.les, h.counts = append(h.les, le), append(h.counts, s.Value)
	}
	counts := map[string]float64{}
	sums := map[string]bool{}
	for _, s := range e.Samples {
		if base, ok := strings.CutSuffix(s.Name, "_count"); ok && e.Types[base] == "histogram" {
			counts[seriesKey(base, s.Labels)] = s.Value
		}
		if base, ok := strings.CutSuffix(s.Name, "_sum"); ok && e.Types[base] == "histogram" {
			sums[seriesKey(base, s.Labels)] = true
		}
	}
	for _, key := range order {
		h := series[key]
		name := strings.ReplaceAll(key, "\xff", " ")
		if !math.IsInf(h.les[len(h.les)-1], 1) {
			return fmt.Errorf("histogram %s: no +Inf bucket", name)
		}
		if c, ok := counts[key]; !ok || c != h.counts[len(h.counts)-1] {
			return fmt.Errorf("histogram %s: _count missing or not equal to the +Inf bucket", name)
		}
		if !sums[key] {
			return fmt.Errorf("histogram %s: no _sum", name)
		}
	}
	return nil
}
