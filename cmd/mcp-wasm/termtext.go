package main

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// Guest text on the operator's terminal. Identifiers a guest returns
// (version, URIs, requested paths, MIME types) are refused by abi when they
// hold a control or format character; free text (titles, descriptions,
// resource names, text contents, completion values, cursors, error
// messages) cannot be refused, so every human-readable line the CLI prints
// goes through termLine or termText, which write such characters as
// visible escapes (\x1b, \u202e). --json output goes through safeJSON.
// RATIONALE: "Why are some guest strings refused and others escaped?"
//
// These escape rather than replace (runtime.Sanitize writes U+FFFD): a
// provider author debugging with call must see which byte was there.

// termLine renders s as part of one line: every control or format
// character, newlines and tabs included, becomes a visible escape, and the
// result is cut to about max bytes.
func termLine(s string, max int) string {
	return escapeText(s, max, false)
}

// termText renders free text that may span lines: newlines, tabs and CRLF
// line ends stay; every other control or format character (a lone CR
// included, which would overwrite the line) becomes a visible escape.
func termText(s string) string {
	return escapeText(s, -1, true)
}

func escapeText(s string, max int, multiline bool) string {
	if !abi.HasControlOrFormat(s) && (max < 0 || len(s) <= max) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if max >= 0 && b.Len() >= max {
			b.WriteString("…")
			break
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case multiline && (r == '\n' || r == '\t' || r == '\r' && strings.HasPrefix(s[i+1:], "\n")):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && abi.IsControlOrFormat(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case abi.IsControlOrFormat(r) && r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		case abi.IsControlOrFormat(r):
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// safeJSON rewrites encoded JSON so that no control or format character
// stays raw: encoding/json escapes C0 controls, U+2028 and U+2029, but
// writes DEL, C1 controls, BiDi controls and other format characters as
// they are, and a terminal showing the JSON would act on them. Outside
// strings JSON holds only ASCII punctuation, digits, letters and
// whitespace, so every such character is inside a string, where \uXXXX
// (a surrogate pair above U+FFFF) means the same character: the decoded
// value is unchanged.
func safeJSON(js []byte) []byte {
	var b bytes.Buffer
	for i := 0; i < len(js); {
		r, n := utf8.DecodeRune(js[i:])
		switch {
		case r == '\n' || r == '\t' || !abi.IsControlOrFormat(r): // raw newlines and tabs are the indentation
			b.Write(js[i : i+n])
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		}
		i += n
	}
	return b.Bytes()
}
