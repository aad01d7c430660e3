package server

import (
	"bytes"
	"encoding/json"
	"errors"
)

// A scanner over JSON that is already known to be valid: every frame a
// client sends passes json.Valid and utf8.Valid in decodeFrame before its
// members are read, so reading them needs only to find where each value
// ends, not to check it again. encoding/json's Decoder, which read them
// before, tokenized and copied every member and was a tenth of the
// server's CPU per 1 KiB read (docs/performance.md). On bytes that are not
// valid JSON these functions never panic and never loop; they return an
// error or a reading that callers must not rely on.

var errNotObject = errors.New("a message must be a JSON object")

// readMembers calls f with each member of the JSON object raw, in order:
// its name, decoded, and its value as written (a slice of raw, capped so
// that appending to it cannot touch raw). raw must be valid JSON.
func readMembers(raw json.RawMessage, f func(name string, v json.RawMessage) error) error {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return errNotObject
	}
	if i = skipSpace(raw, i+1); i < len(raw) && raw[i] == '}' {
		return nil
	}
	for {
		if i >= len(raw) || raw[i] != '"' {
			return errNotObject
		}
		end := skipString(raw, i)
		if end < 0 {
			return errNotObject
		}
		name, ok := jsonString(raw[i:end])
		if !ok {
			return errNotObject
		}
		if i = skipSpace(raw, end); i >= len(raw) || raw[i] != ':' {
			return errNotObject
		}
		i = skipSpace(raw, i+1)
		end = skipValue(raw, i)
		if end < 0 {
			return errNotObject
		}
		if err := f(name, raw[i:end:end]); err != nil {
			return err
		}
		if i = skipSpace(raw, end); i >= len(raw) {
			return errNotObject
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case '}':
			return nil
		default:
			return errNotObject
		}
	}
}

// jsonString decodes raw if it is a JSON string. A string of printable
// ASCII without escapes, which is what ids, methods, names and URIs
// almost always are, is taken as written; any other goes through
// encoding/json.
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	plain := raw[len(raw)-1] == '"'
	for _, c := range body {
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return string(body), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts at b[i]
// (a '"'), or -1 if it does not end.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		escapes := 0 // a quote after an odd run of backslashes is escaped
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			escapes++
		}
		if escapes%2 == 0 {
			return j + 1
		}
		j++
	}
	return -1
}

// skipValue returns the index just past the value that starts at b[i], or
// -1 if there is none.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end := skipString(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	case ',', ':', '}', ']', ' ', '\t', '\n', '\r':
		return -1
	}
	j := i // a number, true, false or null: up to the next delimiter
	for j < len(b) && !delimiter(b[j]) {
		j++
	}
	return j
}

// delimiter reports whether c ends a number or a literal.
func delimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ':', '{', '[', '"', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}
