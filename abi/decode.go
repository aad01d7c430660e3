package abi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// ErrMalformed is wrapped by every decoding error: the bytes are not a payload
// of the expected type under the ABI's strict JSON rules.
var ErrMalformed = errors.New("malformed payload")

// maxDepth bounds nesting of guest JSON; no payload needs more than 6.
const maxDepth = 16

// knownKeys is every JSON member name of every payload type, exactly as spelled.
// A guest key not in this set (a case variant, a typo) is rejected by the scan;
// a known key in the wrong object is rejected by DisallowUnknownFields.
var knownKeys = collectKeys(
	Describe{}, ListResult{}, TemplatesResult{}, ReadResult{},
	CompleteResult{}, ChangesResult{}, Error{},
)

// Decode strictly decodes guest output into v (a pointer to an output payload
// type: Describe, ListResult, TemplatesResult, ReadResult, CompleteResult,
// ChangesResult or Error). Inputs are written by the host and are decoded by
// guests with plain encoding/json.
// On top of encoding/json it rejects: invalid UTF-8, lone UTF-16 surrogate
// escapes, duplicate keys, keys that differ from the schema only in case,
// unknown keys, trailing data and nesting deeper than 16. The error wraps
// ErrMalformed and never quotes the input.
func Decode(data []byte, v any) error {
	if err := scan(data); err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %s", ErrMalformed, describeJSONError(err))
	}
	return nil
}

// describeJSONError turns an encoding/json error into text that names the
// field or offset but never echoes guest bytes.
func describeJSONError(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return fmt.Sprintf("field %q has the wrong type (want %s)", typeErr.Field, typeErr.Type)
	}
	var syntaxErr *json.SyntaxError
	if errors.As(err, &syntaxErr) {
		return fmt.Sprintf("syntax error at byte %d", syntaxErr.Offset)
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "json: unknown field ") {
		return "unknown field " + sanitizeKey(strings.TrimPrefix(msg, "json: unknown field "))
	}
	return "invalid JSON document"
}

func sanitizeKey(s string) string {
	s = strings.Trim(s, `"`)
	if len(s) > 64 || !isPrintableASCII(s) {
		return "(unprintable)"
	}
	return fmt.Sprintf("%q", s)
}

func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func collectKeys(vs ...any) map[string]bool {
	keys := map[string]bool{}
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name != "" && name != "-" {
				keys[name] = true
			}
			walk(f.Type)
		}
	}
	for _, v := range vs {
		walk(reflect.TypeOf(v))
	}
	return keys
}

// scanner is a single-pass validator of one JSON value.
type scanner struct {
	data  []byte
	pos   int
	depth int
}

func scan(data []byte) error {
	if !utf8.Valid(data) {
		return errors.New("invalid UTF-8")
	}
	s := &scanner{data: data}
	s.skipSpace()
	if err := s.value(); err != nil {
		return err
	}
	s.skipSpace()
	if s.pos != len(s.data) {
		return fmt.Errorf("trailing data at byte %d", s.pos)
	}
	return nil
}

func (s *scanner) errf(format string, args ...any) error {
	return fmt.Errorf("byte %d: "+format, append([]any{s.pos}, args...)...)
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) value() error {
	if s.pos >= len(s.data) {
		return s.errf("unexpected end of input")
	}
	switch c := s.data[s.pos]; {
	case c == '{':
		return s.object()
	case c == '[':
		return s.array()
	case c == '"':
		_, err := s.str(false)
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(s.data[s.pos:], []byte(lit)) {
				s.pos += len(lit)
				return nil
			}
		}
		return s.errf("invalid value")
	}
}

func (s *scanner) enter() error {
	s.depth++
	if s.depth > maxDepth {
		return s.errf("nesting deeper than %d", maxDepth)
	}
	return nil
}

func (s *scanner) object() error {
	if err := s.enter(); err != nil {
		return err
	}
	s.pos++ // '{'
	var seen []string
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		s.depth--
		return nil
	}
	for {
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return s.errf("expected object key")
		}
		key, err := s.str(true)
		if err != nil {
			return err
		}
		if !knownKeys[key] {
			return fmt.Errorf("unknown key %s", sanitizeKey(key))
		}
		for _, k := range seen {
			if strings.EqualFold(k, key) {
				return fmt.Errorf("duplicate key %s", sanitizeKey(key))
			}
		}
		seen = append(seen, key)
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return s.errf("expected ':'")
		}
		s.pos++
		s.skipSpace()
		if err := s.value(); err != nil {
			return err
		}
		s.skipSpace()
		if s.pos >= len(s.data) {
			return s.errf("unexpected end of input")
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case '}':
			s.pos++
			s.depth--
			return nil
		default:
			return s.errf("expected ',' or '}'")
		}
	}
}

func (s *scanner) array() error {
	if err := s.enter(); err != nil {
		return err
	}
	s.pos++ // '['
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		s.depth--
		return nil
	}
	for {
		s.skipSpace()
		if err := s.value(); err != nil {
			return err
		}
		s.skipSpace()
		if s.pos >= len(s.data) {
			return s.errf("unexpected end of input")
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case ']':
			s.pos++
			s.depth--
			return nil
		default:
			return s.errf("expected ',' or ']'")
		}
	}
}

// str scans a string starting at '"'. It returns the raw contents only when
// wantKey is set and the key contains no escapes (escaped keys are rejected:
// no schema key needs one, and they would hide case variants).
func (s *scanner) str(wantKey bool) (string, error) {
	start := s.pos + 1
	s.pos++
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			raw := s.data[start:s.pos]
			s.pos++
			return string(raw), nil
		case c == '\\':
			if wantKey {
				return "", s.errf("escaped object key")
			}
			if err := s.escape(); err != nil {
				return "", err
			}
		case c < 0x20:
			return "", s.errf("control character in string")
		default:
			s.pos++
		}
	}
	return "", s.errf("unterminated string")
}

func (s *scanner) escape() error {
	if s.pos+1 >= len(s.data) {
		return s.errf("truncated escape")
	}
	switch s.data[s.pos+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.pos += 2
		return nil
	case 'u':
		r, ok := s.hex4(s.pos + 2)
		if !ok {
			return s.errf("invalid \\u escape")
		}
		s.pos += 6
		switch {
		case r >= 0xD800 && r <= 0xDBFF:
			lo, ok := s.hex4(s.pos + 2)
			if !ok || s.data[s.pos] != '\\' || s.data[s.pos+1] != 'u' || lo < 0xDC00 || lo > 0xDFFF {
				return s.errf("lone UTF-16 surrogate")
			}
			s.pos += 6
		case r >= 0xDC00 && r <= 0xDFFF:
			return s.errf("lone UTF-16 surrogate")
		}
		return nil
	default:
		return s.errf("invalid escape")
	}
}

func (s *scanner) hex4(at int) (rune, bool) {
	if at+4 > len(s.data) {
		return 0, false
	}
	var r rune
	for _, c := range s.data[at : at+4] {
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

func (s *scanner) number() error {
	start := s.pos
	if s.data[s.pos] == '-' {
		s.pos++
	}
	digits := func() int {
		n := 0
		for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
			s.pos++
			n++
		}
		return n
	}
	if s.pos < len(s.data) && s.data[s.pos] == '0' {
		s.pos++
	} else if digits() == 0 {
		return s.errf("invalid number")
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		s.pos++
		if digits() == 0 {
			return s.errf("invalid number")
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		if digits() == 0 {
			return s.errf("invalid number")
		}
	}
	if s.pos-start > 64 {
		return s.errf("number too long")
	}
	return nil
}
