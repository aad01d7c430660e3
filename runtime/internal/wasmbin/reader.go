package wasmbin

import (
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// errEOF is what every read past the end of its byte range reports.
var errEOF = errors.New("unexpected end")

// reader is a bounds-checked cursor over one byte range of a module. Every
// method returns an error instead of reading past the end, and nothing it
// returns aliases memory the caller could mistake for a copy.
type reader struct {
	b   []byte
	pos int
}

func (r *reader) len() int { return len(r.b) - r.pos }

func (r *reader) byte() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, errEOF
	}
	r.pos++
	return r.b[r.pos-1], nil
}

// bytes returns the next n bytes (a subslice of the module).
func (r *reader) bytes(n uint64) ([]byte, error) {
	if n > uint64(r.len()) {
		return nil, errEOF
	}
	s := r.b[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return s, nil
}

// u32 reads an unsigned LEB128 of at most 5 bytes whose value fits in 32
// bits, as the binary format requires.
func (r *reader) u32() (uint32, error) {
	var v uint64
	for i := 0; i < 5; i++ {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			if v > math.MaxUint32 {
				return 0, errors.New("integer too large for u32")
			}
			return uint32(v), nil
		}
	}
	return 0, errors.New("u32 LEB128 longer than 5 bytes")
}

// signed reads a signed LEB128 of at most bits bits (32, 33 or 64),
// checking that the unused bits of the last byte are a sign extension.
func (r *reader) signed(bits int) (int64, error) {
	var v int64
	shift := 0
	maxBytes := (bits + 6) / 7
	for i := 0; i < maxBytes; i++ {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 != 0 {
			continue
		}
		if i == maxBytes-1 {
			// The bits of the last byte beyond the value's width must all
			// equal its sign bit.
			used := bits - 7*(maxBytes-1)
			if hi := c >> (used - 1); hi != 0 && hi != (1<<(8-used))-1 {
				return 0, fmt.Errorf("s%d LEB128 has bad padding", bits)
			}
		}
		if shift < 64 && c&0x40 != 0 {
			v |= -1 << shift
		}
		return v, nil
	}
	return 0, fmt.Errorf("s%d LEB128 longer than %d bytes", bits, maxBytes)
}

// name reads a length-prefixed UTF-8 name.
func (r *reader) name(what string) (string, error) {
	n, err := r.u32()
	if err != nil {
		return "", err
	}
	b, err := r.bytes(uint64(n))
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%s is not valid UTF-8", what)
	}
	return string(b), nil
}

// count reads a vector length and refuses one that cannot fit in the bytes
// left when each element takes at least minSize bytes, so that no caller
// allocates for elements that are not there.
func (r *reader) count(what string, minSize int) (uint32, error) {
	n, err := r.u32()
	if err != nil {
		return 0, fmt.Errorf("%s count: %w", what, err)
	}
	if uint64(n)*uint64(minSize) > uint64(r.len()) {
		return 0, fmt.Errorf("%s count %d is more than the %d bytes left can hold", what, n, r.len())
	}
	return n, nil
}

// appendU32 appends v as an unsigned LEB128.
func appendU32(b []byte, v uint32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// appendS64 appends v as a signed LEB128.
func appendS64(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
