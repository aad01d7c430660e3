package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTermLine(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"plain text, café 😀", 100, "plain text, café 😀"},
		{"a\x1b[31mred", 100, `a\x1b[31mred`},
		{"one\ntwo\r\n\tx", 100, `one\ntwo\r\n\tx`},
		{"\u009b1m", 100, `\u009b1m`},
		{"\u202egnp.exe", 100, `\u202egnp.exe`},
		{"a\u2028b", 100, `a\u2028b`},
		{"a\U000E0041", 100, `a\U000e0041`},
		{"bad \xff utf-8", 100, `bad \xff utf-8`},
		{strings.Repeat("x", 20), 10, strings.Repeat("x", 10) + "…"},
		{strings.Repeat("\x1b", 20), 10, strings.Repeat(`\x1b`, 3) + "…"},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, termLine(tc.in, tc.max), "%q", tc.in)
	}
}

func TestTermText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"line one\nline two\n", "line one\nline two\n"},
		{"windows\r\nlines\r\n", "windows\r\nlines\r\n"},
		{"tab\tstays", "tab\tstays"},
		{"over\rwrite", `over\rwrite`},
		{"end\r", `end\r`},
		{"\x1b]52;c;eA==\x07", `\x1b]52;c;eA==\x07`},
		{"\u2066isolate\u2069\n", `\u2066isolate\u2069` + "\n"},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, termText(tc.in), "%q", tc.in)
	}
}

// FuzzTerm: whatever a guest sends, termLine and termText leave no raw
// control or format character but their own newlines and tabs.
func FuzzTerm(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Add("a\r\nb\n\tc\xff")
	f.Fuzz(func(t *testing.T, s string) {
		line := termLine(s, 100)
		require.NotContains(t, line, "\n")
		requireNoRawControl(t, "termLine", line)
		requireNoRawControl(t, "termText", termText(s))
	})
}

// FuzzSafeJSON: safeJSON output decodes to what was encoded and holds no
// raw control or format character outside the indentation.
func FuzzSafeJSON(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Add("\U0010FFFF\U000E007F\u00ad\u061c")
	f.Fuzz(func(t *testing.T, s string) {
		js, err := json.MarshalIndent(map[string]any{"k": []string{s, "x"}}, "", "  ")
		require.NoError(t, err)
		out := safeJSON(js)
		requireNoRawControl(t, "safeJSON", string(out))
		var want, got any
		require.NoError(t, json.Unmarshal(js, &want))
		require.NoError(t, json.Unmarshal(out, &got))
		require.Equal(t, want, got)
	})
}
