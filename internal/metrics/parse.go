package metrics

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Sample is one parsed sample line.
type Sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// Exposition is a parsed text exposition: every sample in order, and the
// declared type of each family.
type Exposition struct {
	Samples []Sample
	Types   map[string]string
}

// Value returns the value of the sample with this name and exactly these
// labels (name=value pairs), and whether there is one.
func (e *Exposition) Value(name string, labels ...string) (float64, bool) {
	for _, s := range e.Samples {
		if s.Name == name && len(s.Labels) == len(labels)/2 && s.has(labels) {
			return s.Value, true
		}
	}
	return 0, false
}

// Sum adds the values of every sample with this name whose labels include
// the given name=value pairs.
func (e *Exposition) Sum(name string, labels ...string) float64 {
	var t float64
	for _, s := range e.Samples {
		if s.Name == name && s.has(labels) {
			t += s.Value
		}
	}
	return t
}

func (s Sample) has(pairs []string) bool {
	for i := 0; i+1 < len(pairs); i += 2 {
		if v, ok := s.Labels[pairs[i]]; !ok || v != pairs[i+1] {
			return false
		}
	}
	return true
}

// ParseText parses and checks a text exposition (version 0.0.4) strictly:
// TYPE before a family's samples and at most once, sample names belonging
// to the declared family, valid label syntax and escapes, no duplicate
// series, and consistent histograms (ascending le, cumulative counts, a
// +Inf bucket equal to _count). It is what tests and the load test use to
// read /metrics.
func ParseText(r io.Reader) (*Exposition, error) {
	e := &Exposition{Types: map[string]string{}}
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if err := e.parseLine(line, seen); err != nil {
			return nil, fmt.Errorf("line %d %q: %w", n, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read exposition: %w", err)
	}
	return e, checkHistograms(e)
}

func (e *Exposition) parseLine(line string, seen map[string]bool) error {
	switch {
	case line == "":
		return nil
	case strings.HasPrefix(line, "# TYPE "):
		f := strings.Fields(line[len("# TYPE "):])
		if len(f) != 2 || !nameRE.MatchString(f[0]) || !slices.Contains([]string{"counter", "gauge", "histogram", "summary", "untyped"}, f[1]) {
			return fmt.Errorf("malformed TYPE")
		}
		if _, dup := e.Types[f[0]]; dup {
			return fmt.Errorf("second TYPE for %s", f[0])
		}
		e.Types[f[0]] = f[1]
		return nil
	case strings.HasPrefix(line, "#"):
		return nil // HELP or a comment
	}
	s, err := parseSample(line)
	if err != nil {
		return err
	}
	if fam := e.family(s.Name); fam == "" {
		return fmt.Errorf("sample %s before its TYPE", s.Name)
	}
	key := seriesKey(s.Name, s.Labels)
	if seen[key] {
		return fmt.Errorf("duplicate series")
	}
	seen[key] = true
	e.Samples = append(e.Samples, s)
	return nil
}

// family returns the declared family a sample name belongs to, or "".
func (e *Exposition) family(name string) string {
	if _, ok := e.Types[name]; ok {
		return name
	}
	for _, suf := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suf); ok && e.Types[base] == "histogram" {
			return base
		}
	}
	return ""
}

func seriesKey(name string, labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString(name)
	for _, k := range keys {
		b.WriteString("\xff" + k + "=" + labels[k])
	}
	return b.String()
}

// parseSample parses name{l="v",...} value.
func parseSample(line string) (Sample, error) {
	s := Sample{Labels: map[string]string{}}
	i := strings.IndexAny(line, "{ ")
	if i <= 0 || !nameRE.MatchString(line[:i]) {
		return s, fmt.Errorf("bad metric name")
	}
	s.Name, line = line[:i], line[i:]
	if line[0] == '{' {
		rest, err := parseLabels(line[1:], s.Labels)
		if err != nil {
			return s, err
		}
		line = rest
	}
	f := strings.Fields(line)
	if len(f) < 1 || len(f) > 2 || line[0] != ' ' {
		return s, fmt.Errorf("want one value and an optional timestamp")
	}
	v, err := parseValue(f[0])
	if err != nil {
		return s, err
	}
	s.Value = v
	return s, nil
}

// parseLabels parses l="v",...} into m and returns what follows the brace.
func parseLabels(in string, m map[string]string) (string, error) {
	for {
		if strings.HasPrefix(in, "}") {
			return in[1:], nil
		}
		eq := strings.IndexByte(in, '=')
		if eq <= 0 || !labelRE.MatchString(in[:eq]) || len(in) < eq+2 || in[eq+1] != '"' {
			return "", fmt.Errorf("bad label")
		}
		name := in[:eq]
		val, rest, err := unquote(in[eq+2:])
		if err != nil {
			return "", err
		}
		if _, dup := m[name]; dup {
			return "", fmt.Errorf("label %s twice", name)
		}
		m[name] = val
		in, _ = strings.CutPrefix(rest, ",")
		if !strings.HasPrefix(rest, ",") && !strings.HasPrefix(rest, "}") {
			return "", fmt.Errorf("want , or } after label %s", name)
		}
	}
}

// unquote reads an escaped label value up to its closing quote.
func unquote(in string) (string, string, error) {
	var b strings.Builder
	for i := 0; i < len(in); i++ {
		switch c := in[i]; c {
		case '"':
			return b.String(), in[i+1:], nil
		case '\\':
			if i+1 == len(in) {
				return "", "", fmt.Errorf("dangling escape")
			}
			i++
			switch in[i] {
			case '\\', '"':
				b.WriteByte(in[i])
			case 'n':
				b.WriteByte('\n')
			default:
				return "", "", fmt.Errorf("bad escape \\%c", in[i])
			}
		case '\n':
			return "", "", fmt.Errorf("raw newline in label value")
		default:
			b.WriteByte(c)
		}
	}
	return "", "", fmt.Errorf("unterminated label value")
}

func parseValue(s string) (float64, error) {
	switch s {
	case "+Inf":
		return math.Inf(1), nil
	case "-Inf":
		return math.Inf(-1), nil
	case "NaN":
		return math.NaN(), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("bad value %q", s)
	}
	return v, nil
}
