package sqlitefmt

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the storage class of a Value.
type Kind uint8

// Storage classes.
const (
	Null Kind = iota
	Integer
	Float
	Text
	Blob
)

// Value is one column of a record. Text is always valid UTF-8: text in a
// UTF-16 database is converted, and invalid bytes become U+FFFD.
type Value struct {
	Kind  Kind
	Int   int64
	Float float64
	Text  string
	Blob  []byte
}

// rawValue is a value not yet decoded: its serial type and its bytes.
type rawValue struct {
	st uint64
	b  []byte
}

func (v rawValue) kind() Kind {
	switch {
	case v.st == 0:
		return Null
	case v.st == 7:
		return Float
	case v.st <= 9:
		return Integer
	case v.st%2 == 0:
		return Blob
	}
	return Text
}

func (v rawValue) value(enc uint32) Value { return decodeValue(v.st, v.b, enc) }

// decodeRaw splits a record (a header of serial types, then the values)
// into vals, reused by the caller, without decoding or copying values.
func decodeRaw(b []byte, vals []rawValue) ([]rawValue, error) {
	hsize, k := uvarint(b)
	if k == 0 || hsize < uint64(k) || hsize > uint64(len(b)) {
		return nil, fmt.Errorf("%w: a record's header size %d does not fit its %d bytes", ErrCorrupt, hsize, len(b))
	}
	hdr, body := b[k:hsize], b[hsize:]
	for len(hdr) > 0 {
		st, k := uvarint(hdr)
		if k == 0 {
			return nil, fmt.Errorf("%w: a record's serial type is cut off", ErrCorrupt)
		}
		hdr = hdr[k:]
		n := serialSize(st)
		if n < 0 {
			return nil, fmt.Errorf("%w: a record has the reserved serial type %d", ErrCorrupt, st)
		}
		if uint64(n) > uint64(len(body)) {
			return nil, fmt.Errorf("%w: a record's value of %d bytes runs past its end", ErrCorrupt, n)
		}
		vals = append(vals, rawValue{st: st, b: body[:n]})
		body = body[n:]
	}
	return vals, nil
}

// decodeRecord decodes a record (a header of serial types, then the
// values) in the database's text encoding.
func decodeRecord(b []byte, enc uint32) ([]Value, error) {
	hsize, k := uvarint(b)
	if k == 0 || hsize < uint64(k) || hsize > uint64(len(b)) {
		return nil, fmt.Errorf("%w: a record's header size %d does not fit its %d bytes", ErrCorrupt, hsize, len(b))
	}
	hdr, body := b[k:hsize], b[hsize:]
	n := 0 // serial types: at most one per header byte, usually one byte each
	for _, c := range hdr {
		if c < 0x80 {
			n++
		}
	}
	vals := make([]Value, 0, n)
	for len(hdr) > 0 {
		st, k := uvarint(hdr)
		if k == 0 {
			return nil, fmt.Errorf("%w: a record's serial type is cut off", ErrCorrupt)
		}
		hdr = hdr[k:]
		n := serialSize(st)
		if n < 0 {
			return nil, fmt.Errorf("%w: a record has the reserved serial type %d", ErrCorrupt, st)
		}
		if uint64(n) > uint64(len(body)) {
			return nil, fmt.Errorf("%w: a record's value of %d bytes runs past its end", ErrCorrupt, n)
		}
		vals = append(vals, decodeValue(st, body[:n], enc))
		body = body[n:]
	}
	return vals, nil
}

// serialSize is the body size of serial type st, or -1 for the reserved 10
// and 11. Sizes of text and blobs are capped by the caller's payload check.
func serialSize(st uint64) int64 {
	switch {
	case st <= 4:
		return [...]int64{0, 1, 2, 3, 4}[st]
	case st == 5:
		return 6
	case st == 6 || st == 7:
		return 8
	case st == 8 || st == 9:
		return 0
	case st == 10 || st == 11:
		return -1
	case st > 1<<62:
		return math.MaxInt64
	}
	return int64((st - 12) / 2)
}

func decodeValue(st uint64, b []byte, enc uint32) Value {
	switch {
	case st == 0:
		return Value{Kind: Null}
	case st >= 1 && st <= 6:
		var v int64
		for _, c := range b {
			v = v<<8 | int64(c)
		}
		shift := 64 - 8*uint(len(b)) // sign-extend
		return Value{Kind: Integer, Int: v << shift >> shift}
	case st == 7:
		return Value{Kind: Float, Float: math.Float64frombits(binary.BigEndian.Uint64(b))}
	case st == 8 || st == 9:
		return Value{Kind: Integer, Int: int64(st - 8)}
	case st%2 == 0:
		return Value{Kind: Blob, Blob: b}
	}
	return Value{Kind: Text, Text: decodeText(b, enc)}
}

// decodeText converts stored text to valid UTF-8.
func decodeText(b []byte, enc uint32) string {
	if enc == EncodingUTF16LE || enc == EncodingUTF16BE {
		u := make([]uint16, len(b)/2)
		for i := range u {
			if enc == EncodingUTF16LE {
				u[i] = binary.LittleEndian.Uint16(b[2*i:])
			} else {
				u[i] = binary.BigEndian.Uint16(b[2*i:])
			}
		}
		return string(utf16.Decode(u))
	}
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
