package mcpw

import (
	"encoding/binary"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// checker is the fast half of result checking. Its methods return true
// only for a result that abi's Validate would accept; false means "not
// proven", and the caller then runs Validate for the exact error. So a
// provider bug still becomes an "internal" error naming the problem, but a
// valid result costs a few jumps per field instead of abi's byte loops
// (~4.6 µs per list entry in a guest) and time.Parse (~3 µs).
//
// It re-states abi's rules with word-at-a-time scans; FuzzChecker holds it
// to "true implies Validate accepts". When abi tightens a rule, that test
// fails until this file follows.
type checker struct {
	// prefixes are the "scheme:" of each root when every root is
	// scheme-only (as abi's own fast path requires); otherwise none, and
	// ownership is never proven here.
	prefixes []schemePrefix
	// fastLen is the longest URI owned decides in one block: 32 with one
	// root of a short scheme, else -1.
	fastLen int
	// lastMIME is the last MIME type seen valid: a list repeats one or two,
	// and comparing a string with itself does not look at its bytes.
	lastMIME string
	// space is the provider's, for the template rule (abi.CheckTemplate).
	space abi.URISpace
}

// schemePrefix is "scheme:" and its first eight bytes as a word.
type schemePrefix struct {
	s          string
	word, mask uint64
}

func newChecker(space abi.URISpace) *checker {
	c := &checker{space: space}
	for _, r := range space {
		if r.Authority != "" || r.PathPrefix != "" {
			return &checker{fastLen: -1, space: space}
		}
		p := schemePrefix{s: r.Scheme + ":"}
		if n := len(p.s); n <= 8 {
			var b [8]byte
			copy(b[:], p.s)
			p.word, p.mask = binary.LittleEndian.Uint64(b[:]), ^uint64(0)>>(64-8*n)
		}
		c.prefixes = append(c.prefixes, p)
	}
	c.fastLen = -1
	if len(c.prefixes) == 1 && len(c.prefixes[0].s) <= 8 {
		c.fastLen = 32
	}
	return c
}

// owned reports that uri is a well-formed URI in the space: a declared
// "scheme:" (exact case), then no authority, and only printable ASCII
// without space, '#', '?' or '\', with '%' only before two hex digits.
// The common case, one root and a URI of up to 32 bytes with no '%', is
// decided in one padded block.
func (c *checker) owned(uri string) bool {
	if len(uri) > c.fastLen {
		return c.ownedLong(uri)
	}
	p := &c.prefixes[0]
	var buf [32]byte
	copy(buf[:], "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	copy(buf[:], uri)
	w0, w1 := binary.LittleEndian.Uint64(buf[0:]), binary.LittleEndian.Uint64(buf[8:])
	// A URI shorter than the prefix cannot match: its padding ('a') is
	// never the prefix's final ':'. The scheme and ':' are in uriSafe.
	n := 8 * uint(len(p.s))
	after := (w0>>n | w1<<(64-n)) & 0xffffff // the three bytes after "scheme:"
	return w0&p.mask == p.word && !(after&0xffff == '/'|'/'<<8 && after>>16 != '/') &&
		uriSafe.outside(w0)|uriSafe.outside(w1)|uriSafe.outside(binary.LittleEndian.Uint64(buf[16:]))|
			uriSafe.outside(binary.LittleEndian.Uint64(buf[24:])) == 0 ||
		c.ownedLong(uri)
}

// ownedLong is owned for any URI and any number of roots.
func (c *checker) ownedLong(uri string) bool {
	if len(uri) > abi.MaxURILength {
		return false
	}
	n := 0
	for i := range c.prefixes {
		if p := &c.prefixes[i]; strings.HasPrefix(uri, p.s) {
			n = len(p.s)
			break
		}
	}
	if n == 0 {
		return false
	}
	rest := uri[n:]
	// An authority ("//" but not "///") needs the full parse.
	if strings.HasPrefix(rest, "//") && !strings.HasPrefix(rest, "///") {
		return false
	}
	for {
		i := uriSafe.span(rest, 'a')
		if i == len(rest) {
			return true
		}
		if rest[i] != '%' || i+2 >= len(rest) || !isHex(rest[i+1]) || !isHex(rest[i+2]) {
			return false
		}
		rest = rest[i+3:]
	}
}

func isHex(c byte) bool { return c-'0' < 10 || (c|0x20)-'a' < 6 }

// mimeOK is abi's checkMIME: empty, or type/subtype in printable ASCII of
// at most 255 bytes with no space or ';' in the type.
func (c *checker) mimeOK(m string) bool { return m == "" || m == c.lastMIME || c.mimeSlow(m) }

func (c *checker) mimeSlow(m string) bool {
	slash := strings.IndexByte(m, '/')
	if slash <= 0 || slash == len(m)-1 || len(m) > 255 || !printable.all(m, 'a') || mimeType.span(m, 'a') < slash {
		return false
	}
	c.lastMIME = m
	return true
}

// mimeType is what a MIME type may hold before its '/'.
var mimeType = newByteClass(0x21, 0x7e, ';')

func textOK(s string) bool { return len(s) <= abi.MaxTextField }

func cacheOK(h *abi.CacheHint) bool {
	return h == nil || h.TTLMs >= 0 && h.TTLMs <= 365*24*3600*1000 && (h.Scope == abi.ScopePublic || h.Scope == abi.ScopePrivate)
}

func annotationsOK(a *abi.Annotations) bool {
	if a == nil {
		return true
	}
	if len(a.Audience) > 2 {
		return false
	}
	// The usual values are constants, which compare without a byte loop.
	for _, x := range a.Audience {
		if x != "user" && x != "assistant" {
			return false
		}
	}
	if p := a.Priority; p != nil && !(*p >= 0 && *p <= 1) {
		return false
	}
	return a.LastModified == "" || rfc3339OK(a.LastModified)
}

func (c *checker) iconsOK(icons []abi.Icon) bool {
	if len(icons) > 8 {
		return false
	}
	for i := range icons {
		ic := &icons[i]
		if len(ic.Src) > 64*1024 || !(strings.HasPrefix(ic.Src, "https://") || strings.HasPrefix(ic.Src, "data:")) ||
			abi.HasControlOrFormat(ic.Src) || !c.mimeOK(ic.MIMEType) || (ic.Theme != "" && ic.Theme != "light" && ic.Theme != "dark") ||
			len(ic.Sizes) > 16 {
			return false
		}
		// Icons are rare: abi's own scan, not a faster copy of it.
		for _, sz := range ic.Sizes {
			if len(sz) > 64 || abi.HasControlOrFormat(sz) {
				return false
			}
		}
	}
	return true
}

// base64OK is abi.ValidBase64: standard padded base64, zero pad bits.
func base64OK(s string) bool {
	if len(s)%4 != 0 {
		return false
	}
	body := strings.TrimSuffix(strings.TrimSuffix(s, "="), "=")
	if !allBase64(body) {
		return false
	}
	switch len(s) - len(body) {
	case 1:
		return b64Bits(body)&0x03 == 0
	case 2:
		return b64Bits(body)&0x0f == 0
	}
	return true
}

// b64Bits is the value of the last base64 digit of body (0 if empty).
func b64Bits(body string) byte {
	if body == "" {
		return 0
	}
	switch c := body[len(body)-1]; {
	case c >= 'a':
		return c - 'a' + 26
	case c >= 'A':
		return c - 'A'
	case c >= '0':
		return c - '0' + 52
	case c == '+':
		return 62
	}
	return 63
}

// rfc3339OK accepts the RFC 3339 timestamps time.Parse(time.RFC3339Nano)
// takes that are plainly valid: "YYYY-MM-DDTHH:MM:SS", an optional
// fraction, then "Z" or "±HH:MM", with a day of month up to 28 (later
// days depend on the month; they are left to time.Parse).
func rfc3339OK(s string) bool {
	if len(s) < 20 || len(s) > 64 {
		return false
	}
	// bad collects, without branches, a non-zero value for any field
	// out of range or any separator out of place.
	bad := sep(s[4], '-') | sep(s[7], '-') | sep(s[10], 'T') | sep(s[13], ':') | sep(s[16], ':') |
		digits2(s[0:2], 0, 99) | digits2(s[2:4], 0, 99) | digits2(s[5:7], 1, 12) | digits2(s[8:10], 1, 28) |
		digits2(s[11:13], 0, 23) | digits2(s[14:16], 0, 59) | digits2(s[17:19], 0, 59)
	rest := s[19:]
	if rest[0] == '.' {
		n := 1 + decimal.span(rest[1:], '0')
		if n == 1 {
			return false
		}
		rest = rest[n:]
	}
	if rest == "Z" {
		return bad == 0
	}
	if len(rest) != 6 || rest[0] != '+' && rest[0] != '-' {
		return false
	}
	return bad|sep(rest[3], ':')|digits2(rest[1:3], 0, 23)|digits2(rest[4:6], 0, 59) == 0
}

// decimal is the ASCII digits.
var decimal = newByteClass('0', '9')

// sep is 0 iff c == want.
func sep(c, want byte) uint32 { return uint32(c ^ want) }

// digits2 is 0 iff d is two ASCII digits whose value is in [lo, hi]. The
// tests are arithmetic, not branches: x>>31 is 1 for a byte below '0',
// (9-x)>>31 for one above '9', and likewise for the range.
func digits2(d string, lo, hi uint32) uint32 {
	x, y := uint32(d[0])-'0', uint32(d[1])-'0'
	v := x*10 + y
	return x>>31 | (9-x)>>31 | y>>31 | (9-y)>>31 | (v-lo)>>31 | (hi-v)>>31
}
