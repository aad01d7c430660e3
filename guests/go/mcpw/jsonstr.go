package mcpw

import (
	"encoding/binary"
	"slices"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// asciiEscape holds, for each ASCII byte outside jsonSafe, the escape
// encoding/json writes: up to six bytes in the low lanes of a word and the
// length in the top lane, so writing one is a single store, not a switch.
var asciiEscape = func() (t [utf8.RuneSelf]uint64) {
	put := func(c byte, esc string) { t[c] = escapeWord(esc) }
	for c := range byte(0x20) {
		put(c, `\u00`+hexDigits[c>>4:c>>4+1]+hexDigits[c&0xf:c&0xf+1])
	}
	put('\b', `\b`)
	put('\f', `\f`)
	put('\n', `\n`)
	put('\r', `\r`)
	put('\t', `\t`)
	put('"', `\"`)
	put('\\', `\\`)
	return t
}()

// escFFFD and escLineSep are the escapes for an invalid byte and for
// U+2028 (U+2029 sets the low bit of the last digit).
var escFFFD, escLineSep = escapeWord(`\ufffd`), escapeWord(`\u2028`)

// escapeWord packs an escape of up to 7 bytes and its length into a word.
func escapeWord(esc string) uint64 {
	var b [8]byte
	copy(b[:], esc)
	b[7] = byte(len(esc))
	return binary.LittleEndian.Uint64(b[:])
}

// appendMember appends prefix (a constant such as `,"uri":`, or "") and
// then s as a JSON string, byte for byte as encoding/json writes it with
// HTML escaping off: '"', '\' and control bytes escaped (\b \f \n \r \t by
// name, others as \u00XX), invalid UTF-8 as \ufffd, and U+2028 and U+2029
// as \u2028 and \u2029.
//
// Every jump costs ~24 ns in a guest (see swar.go), and a call or an
// append costs at least one, so this is written for few of them: a clean
// string of up to 32 bytes is checked in one padded block and copied; a
// longer one is scanned 16 bytes per iteration (one jump per clean window,
// about three per ASCII escape such as a newline) and copied run by run.
func appendMember(dst []byte, prefix, s string) []byte {
	if k := len(dst); len(s) <= 32 && cap(dst)-k >= len(prefix)+len(s)+2 {
		var buf [32]byte
		copy(buf[:], "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
		copy(buf[:], s)
		if jsonSafe.outside(binary.LittleEndian.Uint64(buf[0:]))|jsonSafe.outside(binary.LittleEndian.Uint64(buf[8:]))|
			jsonSafe.outside(binary.LittleEndian.Uint64(buf[16:]))|jsonSafe.outside(binary.LittleEndian.Uint64(buf[24:])) == 0 {
			dst = dst[:k+len(prefix)+len(s)+2]
			copy(dst[k:], prefix)
			dst[k+len(prefix)] = '"'
			copy(dst[k+len(prefix)+1:], s)
			dst[len(dst)-1] = '"'
			return dst
		}
	}
	if cap(dst)-len(dst) < len(prefix)+len(s)+2 {
		grow(&dst, len(prefix)+len(s)+2)
	}
	dst = append(dst, prefix...)
	dst = append(dst, '"')
	return appendEscaped(dst, s)
}

// escapeChunk is how much of s appendEscaped reserves room for at a time,
// for the worst case of six output bytes per input byte: with that room
// reserved, an escape needs no capacity check (each check is a jump).
const escapeChunk = 4 << 10

// appendEscaped appends s, escaped, and the closing quote; see appendMember.
func appendEscaped(dst []byte, s string) []byte {
	start, i := 0, 0 // s[start:i] is clean and not yet copied
	end := 0         // the end of the chunk whose worst case is reserved
	for {
		var m0, m1 uint64
		if i+16 <= end {
			m0, m1 = jsonSafe.outside(load64(s, i)), jsonSafe.outside(load64(s, i+8))
			if m0|m1 == 0 {
				i += 16
				continue
			}
		} else if end < len(s) {
			// Invariant from here: room for 6 bytes per byte of s[i:end],
			// the pending run s[start:i], and 24 more.
			end = min(len(s), i+escapeChunk)
			if need := 6*(end-i) + (i - start) + 24; cap(dst)-len(dst) < need {
				grow(&dst, need)
			}
			continue
		} else {
			// The last 0-15 bytes, padded with clean bytes.
			buf := [16]byte{'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'}
			copy(buf[:], s[i:])
			m0 = jsonSafe.outside(binary.LittleEndian.Uint64(buf[:8]))
			m1 = jsonSafe.outside(binary.LittleEndian.Uint64(buf[8:]))
			if m0|m1 == 0 {
				break
			}
		}
		j := i + firstLane(m0, m1)
		if s[j] >= utf8.RuneSelf {
			dst, i, start = appendNonASCII(dst, s, j, start)
			continue
		}
		// Copy the run and store the escape: 8 bytes, of which the top
		// lane holds the length. The room is reserved (j < i+16, j < end).
		n := j - start
		k := len(dst)
		dst = dst[:k+n+8]
		copy(dst[k:], s[start:j])
		esc := asciiEscape[s[j]]
		binary.LittleEndian.PutUint64(dst[k+n:], esc)
		dst = dst[:k+n+int(esc>>56)]
		i, start = j+1, j+1
	}
	n := len(s) - start
	if cap(dst)-len(dst) < n+1 {
		grow(&dst, n+1)
	}
	k := len(dst)
	dst = dst[:k+n+1]
	copy(dst[k:], s[start:])
	dst[k+n] = '"'
	return dst
}

// grow gives *dst room for n more bytes. It is not inlined, and updates
// dst in place, so that the capacity check before it merges no values and
// the common path falls through without a jump.
//
//go:noinline
func grow(dst *[]byte, n int) { *dst = slices.Grow(*dst, n) }

// appendNonASCII walks the run of non-ASCII bytes at s[i:], leaving valid
// runes in the pending clean run and escaping invalid bytes (as \ufffd) and
// U+2028/U+2029. It returns the new dst, position and run start. A valid
// rune costs one jump: its bytes are checked together, as one word.
func appendNonASCII(dst []byte, s string, i, start int) ([]byte, int, int) {
	for i < len(s) && s[i] >= utf8.RuneSelf {
		var w uint32 // s[i:i+4], zero-padded
		if i+4 <= len(s) {
			w = uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
		} else {
			var b [4]byte
			copy(b[:], s[i:])
			w = binary.LittleEndian.Uint32(b[:])
		}
		x := utf8First[w&0xff]
		size := int(x & 7)
		r := utf8Accept[x>>4]
		// Non-zero if: not a leading byte, truncated, second byte out of
		// its range, or a later byte of the sequence not a continuation.
		bad := uint32(1-min(size>>1, 1)) | uint32((len(s)-i-size)>>63&1) |
			(uint32(r.hi-r.lo)-uint32(byte(w>>8)-r.lo))>>31 | ((w>>16)^0x8080)&contMask[size]
		if bad == 0 && w&0xfeffff != 0xa880e2 { // not U+2028 or U+2029
			i += size
			continue
		}
		esc := escFFFD
		if bad == 0 {
			esc = escLineSep | uint64(w>>16&1)<<40 // \u2028 or \u2029
		} else {
			size = 1
		}
		// The room is reserved: 6 bytes per input byte (appendEscaped).
		n := i - start
		k := len(dst)
		dst = dst[:k+n+8]
		copy(dst[k:], s[start:i])
		binary.LittleEndian.PutUint64(dst[k+n:], esc)
		dst = dst[:k+n+int(esc>>56)]
		i += size
		start = i
	}
	return dst, i, start
}

// contMask selects, by sequence length, the lanes of ((w>>16)^0x8080)
// that must be zero: the top two bits of the third and fourth bytes.
var contMask = [8]uint32{3: 0x00c0, 4: 0xc0c0}

// utf8First and utf8Accept mirror unicode/utf8's first and acceptRanges:
// for a leading byte, the sequence length (low 3 bits, 0 or 1 if invalid
// as a leading byte here) and which range the second byte must lie in.
type acceptRange struct{ lo, hi byte }

var utf8Accept = [...]acceptRange{
	{0x80, 0xbf},
	{0xa0, 0xbf},
	{0x80, 0x9f},
	{0x90, 0xbf},
	{0x80, 0x8f},
}

var utf8First = func() (t [256]byte) {
	for c := 0xc2; c <= 0xdf; c++ {
		t[c] = 2
	}
	for c := 0xe0; c <= 0xef; c++ {
		t[c] = 3
	}
	t[0xe0] = 0x13
	t[0xed] = 0x23
	for c := 0xf0; c <= 0xf4; c++ {
		t[c] = 4
	}
	t[0xf0] = 0x34
	t[0xf4] = 0x44
	return t
}()
