package abi

import "unicode/utf8"

// Control and format characters: the code points a terminal, a log viewer
// or a text renderer acts on instead of showing. ESC (U+001B) starts the
// escape sequences that move the cursor, recolour, retitle the window or
// write the clipboard (OSC 52); C1 controls such as U+009B (CSI) do the
// same in one code point; CR and the line and paragraph separators overwrite
// or split a line; BiDi overrides and isolates (U+202A-U+202E,
// U+2066-U+2069) and invisible characters (U+200B, U+FEFF, the tag
// characters U+E0000-U+E007F) make text read differently from what it is.
//
// The set is the Unicode 15.0 general categories Cc, Cf, Zl and Zp, listed
// here so that it does not change with the Go toolchain's Unicode tables
// (TestControlOrFormatTable checks it against them). ABI §7 names the
// fields that refuse these characters; the host escapes them wherever it
// shows free text.
var controlOrFormat = [...]struct{ lo, hi rune }{
	{0x0000, 0x001F}, {0x007F, 0x009F}, // Cc: C0, DEL, C1
	{0x00AD, 0x00AD}, {0x0600, 0x0605}, {0x061C, 0x061C}, {0x06DD, 0x06DD}, {0x070F, 0x070F},
	{0x0890, 0x0891}, {0x08E2, 0x08E2}, {0x180E, 0x180E}, {0x200B, 0x200F}, // Cf
	{0x2028, 0x2029},                   // Zl, Zp
	{0x202A, 0x202E}, {0x2060, 0x2064}, // Cf: BiDi embeddings and overrides; invisible operators
	{0x2066, 0x206F}, {0xFEFF, 0xFEFF}, {0xFFF9, 0xFFFB}, {0x110BD, 0x110BD}, {0x110CD, 0x110CD},
	{0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0001, 0xE0001}, {0xE0020, 0xE007F},
}

// IsControlOrFormat reports whether r is a control character (C0, DEL,
// C1), a format character (BiDi controls, zero-width characters, tags, ...)
// or a line or paragraph separator: Unicode 15.0 categories Cc, Cf, Zl, Zp.
func IsControlOrFormat(r rune) bool {
	if r < 0x80 {
		return r < 0x20 || r == 0x7f
	}
	for _, x := range controlOrFormat[1:] {
		if r < x.lo {
			return false
		}
		if r <= x.hi {
			return true
		}
	}
	return false
}

// HasControlOrFormat reports whether s holds a control or format character
// (IsControlOrFormat) or is not valid UTF-8.
func HasControlOrFormat(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			if c < 0x20 || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || IsControlOrFormat(r) {
			return true
		}
		i += n
	}
	return false
}
