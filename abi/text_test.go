package abi

import (
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// hostileText are strings a guest can use to take over or mislead a
// terminal or a reader: escape sequences (colour, clipboard write by OSC 52,
// window title), C1 CSI, carriage return, BiDi override and isolate, line
// separator, zero-width space, BOM, a tag character, DEL, NUL.
var hostileText = map[string]string{
	"csi":       "a\x1b[2J\x1b[31mred",
	"osc52":     "a\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07",
	"c1 csi":    "a\u009b31m",
	"cr":        "ok\rEVIL",
	"lf":        "one\ntwo",
	"tab":       "a\tb",
	"bidi rlo":  "a\u202egnp.exe",
	"bidi lri":  "a\u2066b\u2069",
	"line sep":  "a\u2028b",
	"zwsp":      "a\u200bb",
	"bom":       "\ufeffa",
	"tag":       "a\U000E0041",
	"del":       "a\x7f",
	"nul":       "a\x00",
	"soft hyph": "a\u00adb",
}

func TestControlOrFormatTable(t *testing.T) {
	require.Equal(t, "15.0.0", unicode.Version, "the Go toolchain's Unicode changed: compare its Cc, Cf, Zl, Zp with controlOrFormat and ABI.md §7, then update this line")
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
		require.Equal(t, want, IsControlOrFormat(r), "U+%04X", r)
	}
	for i := 1; i < len(controlOrFormat); i++ {
		require.Less(t, controlOrFormat[i-1].hi, controlOrFormat[i].lo, "ranges must be sorted and disjoint")
	}
}

func TestHasControlOrFormat(t *testing.T) {
	for name, s := range hostileText {
		require.True(t, HasControlOrFormat(s), name)
	}
	for _, s := range []string{"", "1.0.0", "/data", "café", "日本語", "👨‍👩‍👧"[:4], "emoji 😀", "a b"} {
		require.False(t, HasControlOrFormat(s), "%q", s)
	}
	require.True(t, HasControlOrFormat("a\xff"), "invalid UTF-8")
}

// TestLabelFields_RefuseControlOrFormat: every identifier-like field a
// guest returns (ABI §7) refuses every hostile string, while free-text
// fields (names, titles, descriptions, reasons, text, completion values,
// cursors, error messages) accept it, to be escaped where shown.
func TestLabelFields_RefuseControlOrFormat(t *testing.T) {
	space := URISpace{{Scheme: "x"}}
	for name, bad := range hostileText {
		t.Run(name, func(t *testing.T) {
			labels := map[string]interface{ validate() error }{
				"version":         describeWith(func(d *Describe) { d.Version = "1" + bad }),
				"filesystem path": describeWith(func(d *Describe) { d.Requests = &Requests{Filesystem: []FSRequest{{Path: "/d" + bad}}} }),
				"http prefix":     describeWith(func(d *Describe) { d.Requests = &Requests{HTTP: []HTTPRequest{{Prefix: "https://h/" + bad}}} }),
				"resource uri": check(func() error {
					return (&ListResult{Resources: []Resource{{URI: "x:/" + bad, Name: "n"}}}).Validate(space)
				}),
				"content uri": check(func() error {
					return (&ReadResult{Contents: []Content{{URI: "x:/" + bad, Text: new("")}}}).Validate(space)
				}),
				"updated uri": check(func() error { return (&ChangesResult{Updated: []string{"x:/" + bad}}).Validate(space) }),
				"icon src": check(func() error {
					return (&ListResult{Resources: []Resource{{URI: "x:a", Name: "n", Icons: []Icon{{Src: "https://i/" + bad}}}}}).Validate(space)
				}),
				"icon sizes": check(func() error {
					return (&ListResult{Resources: []Resource{{URI: "x:a", Name: "n", Icons: []Icon{{Src: "https://i", Sizes: []string{bad}}}}}}).Validate(space)
				}),
				"mime type": check(func() error {
					return (&ReadResult{Contents: []Content{{URI: "x:a", MIMEType: "text/" + bad, Text: new("")}}}).Validate(space)
				}),
				"template": check(func() error {
					return (&TemplatesResult{ResourceTemplates: []ResourceTemplate{{URITemplate: "x:/{id}" + bad, Name: "n"}}}).Validate(space)
				}),
			}
			for field, v := range labels {
				require.ErrorIs(t, v.validate(), ErrInvalid, "%s must refuse %q", field, bad)
			}
			free := map[string]interface{ validate() error }{
				"describe title, description, reasons": describeWith(func(d *Describe) {
					d.Title, d.Description = bad, bad
					d.Requests = &Requests{Filesystem: []FSRequest{{Path: "/d", Reason: bad}}, Config: []ConfigRequest{{Key: "k", Reason: bad}}}
				}),
				"resource name, title, description, cursor": check(func() error {
					return (&ListResult{Resources: []Resource{{URI: "x:a", Name: bad, Title: bad, Description: bad}}, NextCursor: bad}).Validate(space)
				}),
				"text":              check(func() error { return (&ReadResult{Contents: []Content{{URI: "x:a", Text: &bad}}}).Validate(space) }),
				"completion values": check(func() error { return (&CompleteResult{Values: []string{bad}}).Validate() }),
				"error message":     check(func() error { return (&Error{Code: CodeNotFound, Message: bad}).Validate() }),
				"changes cursor":    check(func() error { return (&ChangesResult{Cursor: bad}).Validate(space) }),
			}
			for field, v := range free {
				require.NoError(t, v.validate(), "%s is free text: it must accept %q", field, bad)
			}
		})
	}
}

type check func() error

func (c check) validate() error { return c() }

func describeWith(edit func(*Describe)) check {
	d := Describe{Name: "p", Version: "1.0.0", URISpace: URISpace{{Scheme: "x"}}, Operations: []string{OpRead}}
	edit(&d)
	return func() error { return d.Validate() }
}

func TestParseURI_RefusesControlOrFormat(t *testing.T) {
	for name, bad := range hostileText {
		_, err := ParseURI("x:///a" + bad)
		require.ErrorIs(t, err, ErrBadURI, name)
	}
	// Non-ASCII that is neither control nor format is still a valid IRI-ish URI.
	_, err := ParseURI("x:///café")
	require.NoError(t, err)
	require.True(t, utf8.ValidString("x:///café"))
}
