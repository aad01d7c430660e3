package abi

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrMalformed is wrapped by every decoding error: the bytes are not a payload
// of the expected type under the ABI's strict JSON rules.
var ErrMalformed = errors.New("malformed payload")

// sharedTextMax is the largest input whose strings share one copy of it.
const sharedTextMax = 64 << 10

// maxDepth bounds nesting of guest JSON; no payload needs more than 6.
const maxDepth = 16

// Decode strictly decodes guest output into v (a pointer to an output payload
// type: Describe, ListResult, TemplatesResult, ReadResult, CompleteResult,
// ChangesResult or Error). Inputs are written by the host and are decoded by
// guests with plain encoding/json.
//
// Decoding is driven by the Go type: every member name must match a json tag
// of the struct at that position exactly (no case folding), appear at most
// once, and hold the declared JSON type; null is accepted only for slices and
// pointers. The input must be valid UTF-8 with no lone UTF-16 surrogate
// escapes, control characters in strings, escaped member names, trailing
// data or nesting deeper than 16. The error wraps ErrMalformed and never
// quotes the input.
//
// A read result of raw content in its plainest form, which the default
// provider returns on every read, is decoded without reflection
// (decodeReadFast), with the same result.
func Decode(data []byte, v any) error {
	if r, ok := v.(*ReadResult); ok && r != nil && decodeReadFast(data, r) {
		return nil
	}
	return decode(data, v)
}

// decode is Decode by reflection, for every payload.
func decode(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("%w: decode target must be a non-nil pointer", ErrMalformed)
	}
	if !utf8.Valid(data) {
		return fmt.Errorf("%w: invalid UTF-8", ErrMalformed)
	}
	// One copy of a small input: every unescaped string decoded is a
	// substring of it, so a list page costs one allocation for its strings,
	// not one per string, and keeps alive no more than it holds plus the
	// syntax. A large input is mostly one content string, maybe escaped:
	// its strings are copied one by one.
	d := &decoder{data: data}
	if len(data) <= sharedTextMax {
		d.text = string(data)
	}
	d.skipSpace()
	if err := d.value(codecFor(rv.Elem().Type()), rv.Elem()); err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	d.skipSpace()
	if d.pos != len(d.data) {
		return fmt.Errorf("%w: trailing data at byte %d", ErrMalformed, d.pos)
	}
	return nil
}

// codec describes how to decode one Go type.
type codec struct {
	kind   reflect.Kind
	typ    reflect.Type
	elem   *codec           // slice, pointer and map element
	fields map[string]field // struct members by exact json name
}

type field struct {
	index int
	codec *codec
}

var codecs sync.Map // reflect.Type -> *codec

func codecFor(t reflect.Type) *codec {
	if c, ok := codecs.Load(t); ok {
		return c.(*codec)
	}
	c := buildCodec(t, map[reflect.Type]*codec{})
	codecs.Store(t, c)
	return c
}

func buildCodec(t reflect.Type, seen map[reflect.Type]*codec) *codec {
	if c, ok := seen[t]; ok {
		return c
	}
	c := &codec{kind: t.Kind(), typ: t}
	seen[t] = c
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		c.elem = buildCodec(t.Elem(), seen)
	case reflect.Struct:
		c.fields = map[string]field{}
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if name != "" && name != "-" {
				c.fields[name] = field{index: i, codec: buildCodec(t.Field(i).Type, seen)}
			}
		}
	}
	return c
}

// decoder is a single-pass, type-driven JSON decoder.
type decoder struct {
	data  []byte
	text  string // data as a string, for substrings; empty if data is large
	pos   int
	depth int
	buf   []byte
}

func (d *decoder) errf(format string, args ...any) error {
	return fmt.Errorf("byte %d: "+format, append([]any{d.pos}, args...)...)
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) peek() byte {
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

func (d *decoder) literal(lit string) bool {
	if strings.HasPrefix(string(d.data[d.pos:min(len(d.data), d.pos+len(lit))]), lit) {
		d.pos += len(lit)
		return true
	}
	return false
}

func (d *decoder) value(c *codec, v reflect.Value) error {
	if d.pos >= len(d.data) {
		return d.errf("unexpected end of input")
	}
	if d.peek() == 'n' && (c.kind == reflect.Pointer || c.kind == reflect.Slice || c.kind == reflect.Map) {
		if !d.literal("null") {
			return d.errf("invalid value")
		}
		v.SetZero()
		return nil
	}
	switch c.kind {
	case reflect.Pointer:
		p := reflect.New(c.typ.Elem())
		if err := d.value(c.elem, p.Elem()); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.Struct:
		return d.object(c, v)
	case reflect.Slice:
		return d.array(c, v)
	case reflect.Map:
		return d.mapValue(c, v)
	case reflect.String:
		s, err := d.str()
		if err != nil {
			return err
		}
		v.SetString(s)
		return nil
	case reflect.Bool:
		switch {
		case d.literal("true"):
			v.SetBool(true)
		case d.literal("false"):
			v.SetBool(false)
		default:
			return d.errf("want a boolean")
		}
		return nil
	case reflect.Int, reflect.Int64, reflect.Float64:
		return d.number(c.kind, v)
	}
	return d.errf("unsupported type %s", c.typ)
}

func (d *decoder) enter(open byte) error {
	if d.peek() != open {
		return d.errf("want %q", open)
	}
	d.depth++
	if d.depth > maxDepth {
		return d.errf("nesting deeper than %d", maxDepth)
	}
	d.pos++
	d.skipSpace()
	return nil
}

// next consumes ',' (more to come) or the closing byte (done).
func (d *decoder) next(closing byte) (more bool, err error) {
	d.skipSpace()
	switch d.peek() {
	case ',':
		d.pos++
		d.skipSpace()
		return true, nil
	case closing:
		d.pos++
		d.depth--
		return false, nil
	}
	if d.pos >= len(d.data) {
		return false, d.errf("unexpected end of input")
	}
	return false, d.errf("want ',' or %q", closing)
}

// key returns the member name, a slice of the input: a lookup of
// string(name) in a map does not allocate.
func (d *decoder) key() ([]byte, error) {
	if d.peek() != '"' {
		return nil, d.errf("want a member name")
	}
	start := d.pos + 1
	for i := start; i < len(d.data); i++ {
		switch c := d.data[i]; {
		case c == '"':
			d.pos = i + 1
			d.skipSpace()
			if d.peek() != ':' {
				return nil, d.errf("want ':'")
			}
			d.pos++
			d.skipSpace()
			return d.data[start:i], nil
		case c == '\\':
			return nil, d.errf("escaped member name")
		case c < 0x20:
			return nil, d.errf("control character in member name")
		}
	}
	return nil, d.errf("unterminated member name")
}

func (d *decoder) object(c *codec, v reflect.Value) error {
	if err := d.enter('{'); err != nil {
		return err
	}
	if d.peek() == '}' {
		d.pos++
		d.depth--
		return nil
	}
	var seen uint64
	for {
		name, err := d.key()
		if err != nil {
			return err
		}
		f, ok := c.fields[string(name)]
		if !ok {
			return fmt.Errorf("unknown member %s in %s", sanitizeKey(string(name)), c.typ.Name())
		}
		if seen&(1<<f.index) != 0 {
			return fmt.Errorf("duplicate member %s", sanitizeKey(string(name)))
		}
		seen |= 1 << f.index
		if err := d.value(f.codec, v.Field(f.index)); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if more, err := d.next('}'); !more {
			return err
		}
	}
}

func (d *decoder) array(c *codec, v reflect.Value) error {
	if err := d.enter('['); err != nil {
		return err
	}
	v.Set(reflect.MakeSlice(c.typ, 0, 4)) // v is addressable: a field or a pointer's element
	if d.peek() == ']' {
		d.pos++
		d.depth--
		return nil
	}
	for i := 0; ; i++ {
		v.Grow(1) // amortized doubling; no zero value to build and copy
		v.SetLen(i + 1)
		if err := d.value(c.elem, v.Index(i)); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
		if more, err := d.next(']'); !more {
			return err
		}
	}
}

func (d *decoder) mapValue(c *codec, v reflect.Value) error {
	if err := d.enter('{'); err != nil {
		return err
	}
	m := reflect.MakeMap(c.typ)
	if d.peek() == '}' {
		d.pos++
		d.depth--
		v.Set(m)
		return nil
	}
	for {
		nb, err := d.key()
		if err != nil {
			return err
		}
		name := string(nb)
		if m.MapIndex(reflect.ValueOf(name)).IsValid() {
			return fmt.Errorf("duplicate member %s", sanitizeKey(name))
		}
		ev := reflect.New(c.typ.Elem()).Elem()
		if err := d.value(c.elem, ev); err != nil {
			return err
		}
		m.SetMapIndex(reflect.ValueOf(name), ev)
		if more, err := d.next('}'); !more {
			v.Set(m)
			return err
		}
	}
}

// str decodes a JSON string. The common case, no escapes, costs one copy.
func (d *decoder) str() (string, error) {
	if d.peek() != '"' {
		return "", d.errf("want a string")
	}
	start := d.pos + 1
	i := start
	for i < len(d.data) && d.data[i] != '"' && d.data[i] != '\\' && d.data[i] >= 0x20 {
		i++
	}
	if i < len(d.data) && d.data[i] == '"' {
		d.pos = i + 1
		if d.text != "" {
			return d.text[start:i], nil
		}
		return string(d.data[start:i]), nil
	}
	if cap(d.buf) < len(d.data)-start {
		d.buf = make([]byte, 0, len(d.data)-start) // the unescaped string is never longer
	}
	d.buf = append(d.buf[:0], d.data[start:i]...)
	d.pos = i
	for d.pos < len(d.data) {
		j := d.pos
		for j < len(d.data) && d.data[j] != '"' && d.data[j] != '\\' && d.data[j] >= 0x20 {
			j++
		}
		d.buf = append(d.buf, d.data[d.pos:j]...)
		d.pos = j
		if j >= len(d.data) {
			break
		}
		switch c := d.data[j]; {
		case c == '"':
			d.pos++
			return string(d.buf), nil
		case c == '\\':
			if err := d.escape(); err != nil {
				return "", err
			}
		default:
			return "", d.errf("control character in string")
		}
	}
	return "", d.errf("unterminated string")
}

func unescape(c byte) (byte, bool) {
	switch c {
	case '"', '\\', '/':
		return c, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

func (d *decoder) escape() error {
	if d.pos+1 >= len(d.data) {
		return d.errf("truncated escape")
	}
	if c, ok := unescape(d.data[d.pos+1]); ok {
		d.buf = append(d.buf, c)
		d.pos += 2
		return nil
	}
	if d.data[d.pos+1] != 'u' {
		return d.errf("invalid escape")
	}
	r, ok := hex4(d.data, d.pos+2)
	if !ok {
		return d.errf("invalid \\u escape")
	}
	d.pos += 6
	if utf16.IsSurrogate(r) {
		lo, ok := hex4(d.data, d.pos+2)
		if r >= 0xDC00 || !ok || d.data[d.pos] != '\\' || d.data[d.pos+1] != 'u' || lo < 0xDC00 || lo > 0xDFFF {
			return d.errf("lone UTF-16 surrogate")
		}
		r = utf16.DecodeRune(r, lo)
		d.pos += 6
	}
	d.buf = utf8.AppendRune(d.buf, r)
	return nil
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[at : at+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		default:
			return 0, false
		}
	}
	return r, true
}

// number decodes an RFC 8259 number; integers must have no fraction or exponent.
func (d *decoder) number(kind reflect.Kind, v reflect.Value) error {
	start := d.pos
	if d.peek() == '-' {
		d.pos++
	}
	digits := func() int {
		n := 0
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	if d.peek() == '0' {
		d.pos++
	} else if digits() == 0 {
		return d.errf("want a number")
	}
	integer := true
	if d.peek() == '.' {
		d.pos++
		integer = false
		if digits() == 0 {
			return d.errf("invalid number")
		}
	}
	if c := d.peek(); c == 'e' || c == 'E' {
		d.pos++
		integer = false
		if c := d.peek(); c == '+' || c == '-' {
			d.pos++
		}
		if digits() == 0 {
			return d.errf("invalid number")
		}
	}
	text := string(d.data[start:d.pos])
	if len(text) > 64 {
		return d.errf("number too long")
	}
	if kind == reflect.Float64 {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return d.errf("number out of range")
		}
		v.SetFloat(f)
		return nil
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if !integer || err != nil || v.OverflowInt(n) {
		return d.errf("want an integer")
	}
	v.SetInt(n)
	return nil
}

func sanitizeKey(s string) string {
	if len(s) > 64 || !isPrintableASCII(s) {
		return "(unprintable)"
	}
	return strconv.Quote(s)
}

func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
