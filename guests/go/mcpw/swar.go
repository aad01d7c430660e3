package mcpw

import (
	"encoding/binary"
	"math/bits"
)

// Byte-class scanning a word at a time (SWAR: SIMD within a register).
//
// Why: the runtime stops runaway guests with wazero's termination check,
// which costs ~24 ns every time guest code enters a wasm loop header. Go
// compiles every jump between basic blocks (a taken branch, a loop
// back-edge, the entry of any function that branches) into a branch to
// its function's dispatch loop, so in a Go guest each of those costs
// ~24 ns: a loop over 1 KiB one byte at a time costs ~25 µs. These scans
// look at 16 or 32 bytes per jump with straight-line arithmetic. Every
// mask is exact per byte (no carry crosses a byte lane), so the lowest set
// bit of a mask names the first byte that is not in the class.
//
// The rest of the SDK's hot path is written to the same cost model: fewer
// calls that branch, fewer appends (each capacity check is a jump), and
// tests such as "one of these is present" folded into one comparison.

const (
	lsb = 0x0101010101010101 // the low bit of every byte
	msb = 0x8080808080808080 // the high bit of every byte
	low = 0x7f7f7f7f7f7f7f7f // the seven low bits of every byte
)

// byteClass is a set of ASCII bytes: those in [lo, hi] except the listed
// ones. Bytes >= 0x80 are never in a class. Broadcast values are kept
// precomputed so a word costs a few dozen straight-line operations.
type byteClass struct {
	geLo   uint64    // adding it to 7-bit lanes sets the high bit iff lane >= lo
	gtHi   uint64    // adding it sets the high bit iff lane > hi
	except [4]uint64 // broadcast excluded bytes (0, below lo, fills the rest)
}

// newByteClass returns the class [lo, hi] minus except (at most four bytes);
// lo must be above 0, which then fills the unused exception slots.
func newByteClass(lo, hi byte, except ...byte) byteClass {
	if lo == 0 || hi > 0x7f || len(except) > 4 {
		panic("mcpw: bad byte class")
	}
	c := byteClass{geLo: lsb * uint64(0x80-lo), gtHi: lsb * uint64(0x7f-hi)}
	for i, x := range except {
		c.except[i] = lsb * uint64(x)
	}
	return c
}

var (
	// jsonSafe is what encoding/json copies unescaped (without HTML
	// escaping): printable ASCII and DEL, except '"' and '\'.
	jsonSafe = newByteClass(0x20, 0x7f, '"', '\\')
	// printable is printable ASCII, as abi's isPrintableASCII.
	printable = newByteClass(0x20, 0x7e)
	// uriSafe is what a URI may hold after its scheme for the fast
	// ownership check: printable ASCII without space, and without the bytes
	// that need a full parse ('#', '?', '\') or a second look ('%').
	uriSafe = newByteClass(0x21, 0x7e, '#', '?', '\\', '%')
)

// outside returns a word with the high bit set in every byte lane of w that
// is not in c.
func (c *byteClass) outside(w uint64) uint64 {
	v := w & low
	// ^((v ^ x) + low) has the high bit set iff the lane equals x.
	m := w | ^(v + c.geLo) | (v + c.gtHi) |
		^((v ^ c.except[0]) + low) | ^((v ^ c.except[1]) + low) |
		^((v ^ c.except[2]) + low) | ^((v ^ c.except[3]) + low)
	return m & msb
}

// load64 reads s[i:i+8] as a little-endian word; the compiler makes it one
// 64-bit load.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// span returns the length of the longest prefix of s whose bytes are all
// in c, looking at 16 bytes per iteration; the last 0-15 bytes are padded
// with pad, a byte in c, rather than handled by a loop.
func (c *byteClass) span(s string, pad byte) int {
	i := 0
	for ; i+16 <= len(s); i += 16 {
		m0, m1 := c.outside(load64(s, i)), c.outside(load64(s, i+8))
		if m0|m1 != 0 {
			return i + firstLane(m0, m1)
		}
	}
	buf := [16]byte{pad, pad, pad, pad, pad, pad, pad, pad, pad, pad, pad, pad, pad, pad, pad, pad}
	copy(buf[:], s[i:])
	m0, m1 := c.outside(binary.LittleEndian.Uint64(buf[:8])), c.outside(binary.LittleEndian.Uint64(buf[8:]))
	if m0|m1 == 0 {
		return len(s)
	}
	return i + firstLane(m0, m1)
}

// firstLane returns the index of the lowest flagged lane of the 16-lane
// mask m1:m0 (one of them non-zero), without a branch: t0 is 64 when m0 is
// empty, and only then is m1's count added.
func firstLane(m0, m1 uint64) int {
	t0 := bits.TrailingZeros64(m0)
	return (t0 + bits.TrailingZeros64(m1)&-(t0>>6)) >> 3
}

// all reports whether every byte of s is in c.
func (c *byteClass) all(s string, pad byte) bool { return c.span(s, pad) == len(s) }

// base64Outside returns a word with the high bit set in every lane of w that
// is not in the standard base64 alphabet A-Z a-z 0-9 + /.
func base64Outside(w uint64) uint64 {
	v := w & low
	in := inRange(v, 'A', 'Z') | inRange(v, 'a', 'z') | inRange(v, '0', '9') |
		^((v ^ lsb*'+') + low) | ^((v ^ lsb*'/') + low)
	return (w | ^in) & msb
}

// inRange sets the high bit of every 7-bit lane of v within [lo, hi].
func inRange(v uint64, lo, hi byte) uint64 {
	return (v + lsb*uint64(0x80-lo)) &^ (v + lsb*uint64(0x7f-hi))
}

// allBase64 reports whether every byte of s is in the base64 alphabet.
func allBase64(s string) bool {
	i := 0
	for ; i+32 <= len(s); i += 32 {
		if base64Outside(load64(s, i))|base64Outside(load64(s, i+8))|base64Outside(load64(s, i+16))|base64Outside(load64(s, i+24)) != 0 {
			return false
		}
	}
	for ; i+8 <= len(s); i += 8 {
		if base64Outside(load64(s, i)) != 0 {
			return false
		}
	}
	buf := [8]byte{'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A'}
	copy(buf[:], s[i:])
	return base64Outside(binary.LittleEndian.Uint64(buf[:])) == 0
}
