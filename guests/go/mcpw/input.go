package mcpw

import (
	"bytes"
	"encoding/binary"
	"encoding/json"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// decodeInput decodes the host's input JSON for an operation into req. The
// host writes the inputs with encoding/json, so the common ones are
// {"uri":"..."}, {} and {"cursor":"..."}; those, with a value of plain
// printable ASCII, are read here in a few jumps. Anything else (escapes,
// other members, CompleteRequest) goes to encoding/json, which costs a
// guest ~20 µs. Empty input is the zero request. The result never aliases
// input, which the caller reuses.
func decodeInput(input []byte, req any) error {
	switch r := req.(type) {
	case *abi.ReadRequest:
		if v, ok := plainMember(input, `{"uri":"`); ok {
			r.URI = v
			return nil
		}
	case *abi.PageRequest:
		if v, ok := cursorOnly(input); ok {
			r.Cursor = v
			return nil
		}
	case *abi.ChangesRequest:
		if v, ok := cursorOnly(input); ok {
			r.Cursor = v
			return nil
		}
	}
	if len(bytes.TrimSpace(input)) == 0 {
		return nil
	}
	if err := json.Unmarshal(input, req); err != nil {
		return InvalidParams("decode input: %v", err)
	}
	return nil
}

// cursorOnly reads {} (no cursor) and {"cursor":"..."}.
func cursorOnly(input []byte) (string, bool) {
	if string(input) == "{}" {
		return "", true
	}
	return plainMember(input, `{"cursor":"`)
}

// plainMember reads input of the exact form open + value + `"}`, where open
// is `{"name":"` (8 to 16 bytes) and value is printable ASCII without '"'
// or '\', so it needs no unescaping.
func plainMember(input []byte, open string) (string, bool) {
	n := len(open)
	if len(input) < n+2 || len(open) < 8 || len(open) > 16 ||
		binary.LittleEndian.Uint64(input) != load64(open, 0) ||
		binary.LittleEndian.Uint64(input[n-8:]) != load64(open, n-8) ||
		input[len(input)-2] != '"' || input[len(input)-1] != '}' {
		return "", false
	}
	v := string(input[n : len(input)-2])
	return v, jsonSafe.span(v, 'a') == len(v)
}
