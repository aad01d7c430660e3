package metrics

import (
	"bufio"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// ContentType is the media type of the text exposition format.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Handler serves the registry in the text exposition format, to GET and
// HEAD only.
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed: scrape /metrics with GET", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", ContentType)
		w.Header().Set("Cache-Control", "no-store")
		if req.Method == http.MethodHead {
			return
		}
		_ = r.WriteText(w) // a failed write is the scraper's broken connection
	})
}

// WriteText writes every family, in registration order, with its series
// sorted by label values.
func (r *Registry) WriteText(w io.Writer) error {
	r.mu.Lock()
	families := slices.Clone(r.families)
	r.mu.Unlock()
	bw := bufio.NewWriter(w)
	for _, f := range families {
		f.write(bw)
	}
	return bw.Flush()
}

// snapshot returns the family's series sorted by label values; for a func
// family it runs collect into fresh series.
func (f *family) snapshot() []*series {
	var out []*series
	if f.collect != nil {
		f.collect(func(v float64, labelValues ...string) {
			if len(labelValues) != len(f.labels) {
				return // a collect bug must not break the scrape
			}
			s := &series{labelValues: slices.Clone(labelValues)}
			s.bits.Store(math.Float64bits(v))
			out = append(out, s)
		})
	} else {
		f.mu.RLock()
		for _, s := range f.series {
			out = append(out, s)
		}
		f.mu.RUnlock()
	}
	slices.SortFunc(out, func(a, b *series) int { return slices.Compare(a.labelValues, b.labelValues) })
	return out
}

func (f *family) write(w *bufio.Writer) {
	w.WriteString("# HELP " + f.name + " " + escapeHelp(f.help) + "\n")
	w.WriteString("# TYPE " + f.name + " " + string(f.kind) + "\n")
	for _, s := range f.snapshot() {
		if f.kind != kindHistogram {
			writeSample(w, f.name, f.labels, s.labelValues, "", "", math.Float64frombits(s.bits.Load()))
			continue
		}
		var cum uint64
		for i := range s.counts {
			cum += s.counts[i].Load()
			le := "+Inf"
			if i < len(f.buckets) {
				le = formatFloat(f.buckets[i])
			}
			writeSample(w, f.name+"_bucket", f.labels, s.labelValues, "le", le, float64(cum))
		}
		writeSample(w, f.name+"_sum", f.labels, s.labelValues, "", "", math.Float64frombits(s.sumBits.Load()))
		writeSample(w, f.name+"_count", f.labels, s.labelValues, "", "", float64(cum))
	}
}

// writeSample writes one line: name{labels} value. An extra label (le) is
// appended when extraName is set.
func writeSample(w *bufio.Writer, name string, labels, values []string, extraName, extraValue string, v float64) {
	w.WriteString(name)
	if len(labels) > 0 || extraName != "" {
		w.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteString(l + `="` + escapeLabel(values[i]) + `"`)
		}
		if extraName != "" {
			if len(labels) > 0 {
				w.WriteByte(',')
			}
			w.WriteString(extraName + `="` + extraValue + `"`)
		}
		w.WriteByte('}')
	}
	w.WriteByte(' ')
	w.WriteString(formatFloat(v))
	w.WriteByte('\n')
}

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

func escapeHelp(s string) string  { return helpEscaper.Replace(s) }
func escapeLabel(s string) string { return labelEscaper.Replace(strings.ToValidUTF8(s, "\uFFFD")) }
