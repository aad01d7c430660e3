package egress

import (
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// checkURL refuses a URL whose meaning a server could change after the
// allowlist saw it: userinfo, a non-http scheme, a non-ASCII host, an
// ambiguous path (see checkPath) or a query with spaces. It runs on the
// guest's request and on every redirect, on the URL as it is sent.
func checkURL(u *url.URL) error {
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("scheme %q is not http or https", u.Scheme)
	case u.Opaque != "" || u.Host == "":
		return fmt.Errorf("not an absolute URL with a host")
	case u.User != nil:
		return fmt.Errorf("userinfo (user:password@) in the URL is refused: send credentials in a header")
	case !isASCIIHost(u.Hostname()):
		return fmt.Errorf("host is not ASCII")
	}
	if err := checkPath(u.EscapedPath()); err != nil {
		return fmt.Errorf("ambiguous path: %w: servers normalize such paths differently, so it could name something outside the granted prefix; write the plain path", err)
	}
	if i := strings.IndexFunc(u.RawQuery, func(r rune) bool { return r <= ' ' || r == 0x7f }); i >= 0 {
		return fmt.Errorf("query has a space or a control character: percent-encode it")
	}
	return nil
}

// checkPath refuses an escaped URL path (as sent on the wire; "" means
// "/") that a server could resolve to a place other than where it reads:
// one whose segments are not the same for every server, whatever
// normalization it applies. After decoding the path once it must have
//
//   - no escaped '.', '/', '\', ';' or '%' (%2E, %2F, %5C, %3B, %25):
//     decoded, they make dot segments and separators, or a second
//     decoding;
//   - no backslash, escaped or not (a separator on Windows servers);
//   - no ';' (Tomcat and Jetty cut "..;" to "..": path parameters);
//   - no control character, and only valid UTF-8 (lax decoders read the
//     overlong %C0%AE as '.');
//   - no character whose Unicode compatibility normalization (NFKC) holds
//     one of '.', '/', '\', ';', '%', such as U+FF0E FULLWIDTH FULL STOP
//     or U+2025 TWO DOT LEADER (see nfkcSeparators);
//   - no segment made of dots and spaces only ("." and "..", but also
//     "..." and ".. ", which Windows trims to ".."), and no empty segment
//     except a final one ("//" is merged by some servers, not by others).
//
// Then no server's decoding, dot removal, parameter stripping, slash
// merging or separator conversion changes the segments, and a prefix
// match on the escaped path is a prefix match on what the server serves.
func checkPath(p string) error {
	if p == "" {
		return nil
	}
	if p[0] != '/' {
		return fmt.Errorf("it does not start with '/'")
	}
	decoded, err := decodeOnce(p)
	if err != nil {
		return err
	}
	if !utf8.ValidString(decoded) {
		return fmt.Errorf("it does not decode to UTF-8")
	}
	for _, r := range decoded {
		switch {
		case r == '\\':
			return fmt.Errorf("it has a backslash")
		case r == ';':
			return fmt.Errorf("it has a ';' (a path parameter)")
		case r < ' ' || r == 0x7f:
			return fmt.Errorf("it has a control character")
		case nfkcSeparators[r] != "":
			return fmt.Errorf("it has %U, which Unicode normalization turns into %q", r, nfkcSeparators[r])
		}
	}
	segs := strings.Split(decoded[1:], "/")
	for i, s := range segs {
		switch {
		case s == "" && i != len(segs)-1:
			return fmt.Errorf("it has an empty segment ('//')")
		case s != "" && strings.Trim(s, ". ") == "":
			return fmt.Errorf("it has a segment of dots and spaces only, such as '.' or '..'")
		}
	}
	return nil
}

// decodeOnce percent-decodes p, refusing escapes of the characters whose
// decoding changes the structure of a path.
func decodeOnce(p string) (string, error) {
	if !strings.Contains(p, "%") {
		return p, nil
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] != '%' {
			b.WriteByte(p[i])
			continue
		}
		if i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) {
			return "", fmt.Errorf("it has a '%%' that starts no escape")
		}
		c := unhex(p[i+1])<<4 | unhex(p[i+2])
		if strings.IndexByte("./\\;%", c) >= 0 {
			return "", fmt.Errorf("it has %s, an encoded '%c'", p[i:i+3], c)
		}
		b.WriteByte(c)
		i += 2
	}
	return b.String(), nil
}

// nfkcSeparators maps each code point whose Unicode compatibility
// normalization (NFKC, Unicode 14) holds '.', '/', '\\', ';' or '%' to that
// form. A server that normalizes Unicode could make a dot segment, a
// separator, a path parameter or an escape from them, so a path holding
// one is refused. (Python's unicodedata lists them: the code points c
// with '.', '/', '\\', ';' or '%' in normalize("NFKC", c) != c.)
var nfkcSeparators = map[rune]string{
	0x037E:  ";",    // GREEK QUESTION MARK
	0x2024:  ".",    // ONE DOT LEADER
	0x2025:  "..",   // TWO DOT LEADER
	0x2026:  "...",  // HORIZONTAL ELLIPSIS
	0x2100:  "a/c",  // ACCOUNT OF
	0x2101:  "a/s",  // ADDRESSED TO THE SUBJECT
	0x2105:  "c/o",  // CARE OF
	0x2106:  "c/u",  // CADA UNA
	0x2488:  "1.",   // DIGIT ONE FULL STOP
	0x2489:  "2.",   // DIGIT TWO FULL STOP
	0x248A:  "3.",   // DIGIT THREE FULL STOP
	0x248B:  "4.",   // DIGIT FOUR FULL STOP
	0x248C:  "5.",   // DIGIT FIVE FULL STOP
	0x248D:  "6.",   // DIGIT SIX FULL STOP
	0x248E:  "7.",   // DIGIT SEVEN FULL STOP
	0x248F:  "8.",   // DIGIT EIGHT FULL STOP
	0x2490:  "9.",   // DIGIT NINE FULL STOP
	0x2491:  "10.",  // NUMBER TEN FULL STOP
	0x2492:  "11.",  // NUMBER ELEVEN FULL STOP
	0x2493:  "12.",  // NUMBER TWELVE FULL STOP
	0x2494:  "13.",  // NUMBER THIRTEEN FULL STOP
	0x2495:  "14.",  // NUMBER FOURTEEN FULL STOP
	0x2496:  "15.",  // NUMBER FIFTEEN FULL STOP
	0x2497:  "16.",  // NUMBER SIXTEEN FULL STOP
	0x2498:  "17.",  // NUMBER SEVENTEEN FULL STOP
	0x2499:  "18.",  // NUMBER EIGHTEEN FULL STOP
	0x249A:  "19.",  // NUMBER NINETEEN FULL STOP
	0x249B:  "20.",  // NUMBER TWENTY FULL STOP
	0x33C2:  "a.m.", // SQUARE AM
	0x33C7:  "Co.",  // SQUARE CO
	0x33D8:  "p.m.", // SQUARE PM
	0xFE14:  ";",    // PRESENTATION FORM FOR VERTICAL SEMICOLON
	0xFE19:  "...",  // PRESENTATION FORM FOR VERTICAL HORIZONTAL ELLIPSIS
	0xFE30:  "..",   // PRESENTATION FORM FOR VERTICAL TWO DOT LEADER
	0xFE52:  ".",    // SMALL FULL STOP
	0xFE54:  ";",    // SMALL SEMICOLON
	0xFE68:  "\\",   // SMALL REVERSE SOLIDUS
	0xFE6A:  "%",    // SMALL PERCENT SIGN
	0xFF05:  "%",    // FULLWIDTH PERCENT SIGN
	0xFF0E:  ".",    // FULLWIDTH FULL STOP
	0xFF0F:  "/",    // FULLWIDTH SOLIDUS
	0xFF1B:  ";",    // FULLWIDTH SEMICOLON
	0xFF3C:  "\\",   // FULLWIDTH REVERSE SOLIDUS
	0x1F100: "0.",   // DIGIT ZERO FULL STOP
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
