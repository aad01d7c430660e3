package metrics

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseTextRefusesMalformedExpositions(t *testing.T) {
	tests := map[string]string{
		"sample before type":    "x 1\n",
		"second type":           "# TYPE x gauge\n# TYPE x gauge\n",
		"unknown type":          "# TYPE x thing\n",
		"bad value":             "# TYPE x gauge\nx one\n",
		"no value":              "# TYPE x gauge\nx\n",
		"bad label name":        "# TYPE x gauge\nx{1a=\"v\"} 1\n",
		"unquoted label":        "# TYPE x gauge\nx{a=v} 1\n",
		"bad escape":            "# TYPE x gauge\nx{a=\"\\t\"} 1\n",
		"unterminated":          "# TYPE x gauge\nx{a=\"v} 1\n",
		"label twice":           "# TYPE x gauge\nx{a=\"v\",a=\"w\"} 1\n",
		"duplicate series":      "# TYPE x gauge\nx{a=\"v\"} 1\nx{a=\"v\"} 2\n",
		"missing comma":         "# TYPE x gauge\nx{a=\"v\"b=\"w\"} 1\n",
		"bucket without le":     "# TYPE h histogram\nh_bucket 1\nh_sum 1\nh_count 1\n",
		"no +Inf bucket":        "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n",
		"not cumulative":        "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",
		"le not ascending":      "# TYPE h histogram\nh_bucket{le=\"2\"} 1\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",
		"count differs":         "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 1\n",
		"no sum":                "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n",
		"foreign suffix sample": "# TYPE x gauge\nx_bucket{le=\"1\"} 1\n",
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := ParseText(strings.NewReader(text))
			require.Error(t, err)
		})
	}
}

func TestParseTextAcceptsTimestampsAndComments(t *testing.T) {
	e, err := ParseText(strings.NewReader("# a comment\n# HELP x h\n# TYPE x counter\nx{a=\"b\"} 2 1700000000000\n\n"))
	require.NoError(t, err)
	v, ok := e.Value("x", "a", "b")
	require.True(t, ok)
	require.Equal(t, 2.0, v)
	_, ok = e.Value("x")
	require.False(t, ok, "Value matches the exact label set")
}

// FuzzParseText: any input is parsed or refused without panicking, and
// every sample accepted belongs to a declared family.
func FuzzParseText(f *testing.F) {
	f.Add("# HELP x h\n# TYPE x counter\nx{a=\"b\\\"c\"} 2\n")
	f.Add("# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 3\nh_count 2\n")
	f.Add("# TYPE g gauge\ng NaN\ng{x=\"\\n\"} -Inf 123\n")
	f.Fuzz(func(t *testing.T, text string) {
		e, err := ParseText(strings.NewReader(text))
		if err != nil {
			return
		}
		for _, s := range e.Samples {
			require.NotEmpty(t, e.family(s.Name), "sample %s has no family", s.Name)
		}
	})
}
