package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/require"
)

// member is one member readMembers reported.
type member struct {
	name  string
	value string
}

// membersOf reads raw with readMembers.
func membersOf(raw []byte) ([]member, error) {
	var out []member
	err := readMembers(raw, func(name string, v json.RawMessage) error {
		out = append(out, member{name, string(v)})
		return nil
	})
	return out, err
}

// decoderMembers is what encoding/json's Decoder reads as the members of
// raw: the reference readMembers is held to.
func decoderMembers(raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{name, string(v)})
	}
	return out, nil
}

var jsonSeeds = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a" : "x" , "b":[1,{"c":"}"}],"d":null}`, `{"\u0061":true,"b\"":"\\"}`,
	`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///tmp/f","_meta":{"k":[]}}}`,
	`{"a":"\\\"}"}`, `{"a":-1.5e+3,"b":false}`, `[1]`, `"x"`, `1`, `{"a":1,}`, `{"a"}`, `{"a":`, `{"a":"`, `{`, ``,
	`{"é":"ü","\ud83d\ude00":1}`, `{"a":{"b":{"c":[[[]]]}}}`, "{\"a\":1}\n",
}

// FuzzReadMembers: readMembers reads every valid JSON object exactly as
// encoding/json does, and any other bytes without panicking.
func FuzzReadMembers(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := membersOf(b) // must not panic, whatever b is
		if !json.Valid(b) || !utf8.Valid(b) {
			return
		}
		want, wantErr := decoderMembers(b)
		if wantErr != nil {
			require.Error(t, err, "%q is not an object", b)
			return
		}
		require.NoError(t, err, "%q", b)
		require.Equal(t, want, got, "%q", b)
	})
}

// TestReadMembers: the members of objects as written, and refusals.
func TestReadMembers(t *testing.T) {
	got, err := membersOf([]byte(` {"a" : "x" , "b\"":[1,{"c":"}"}], "\u0064":null , "e":-2.5e3}`))
	require.NoError(t, err)
	require.Equal(t, []member{{"a", `"x"`}, {`b"`, `[1,{"c":"}"}]`}, {"d", "null"}, {"e", "-2.5e3"}}, got)

	for _, bad := range []string{``, `[]`, `"x"`, `{"a"}`, `{"a":}`, `{"a":1`, `{"a":"x}`, `{"a":1 "b":2}`, `{a:1}`} {
		_, err := membersOf([]byte(bad))
		require.Error(t, err, "%q", bad)
	}

	// A value is a slice of the message that appending to cannot change.
	raw := []byte(`{"a":[1],"b":2}`)
	require.NoError(t, readMembers(raw, func(name string, v json.RawMessage) error {
		_ = append(v, 'x')
		return nil
	}))
	require.Equal(t, `{"a":[1],"b":2}`, string(raw))

	// f's error ends the reading and is returned as it is.
	stop := errors.New("stop")
	n := 0
	require.ErrorIs(t, readMembers([]byte(`{"a":1,"b":2}`), func(string, json.RawMessage) error { n++; return stop }), stop)
	require.Equal(t, 1, n)
}

// FuzzJSONString: jsonString decodes exactly what json.Unmarshal decodes
// into a string, on any bytes.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{`"abc"`, `""`, `"a\"b"`, `"\u00e9"`, `"é"`, `"a`, `"`, `x`, `"a"b"`, "\"a\x01\"", "\"\xff\"", `"\ud800"`, `1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := jsonString(b)
		var want string
		wantOK := len(b) > 0 && b[0] == '"' && json.Unmarshal(b, &want) == nil
		require.Equal(t, wantOK, ok, "%q", b)
		if ok {
			require.Equal(t, want, got, "%q", b)
		}
	})
}

// FuzzEncodeResponse: the response to a call is written byte for byte as
// go-sdk's EncodeMessage writes it, whatever its id and its result.
func FuzzEncodeResponse(f *testing.F) {
	f.Add("1", true, int64(7), "text")
	f.Add("a\"b", false, int64(-1), "<a & b>\n\u2028")
	f.Add("", false, int64(0), "")
	f.Add("é\x7f", true, int64(1<<53-1), "\xff")
	f.Fuzz(func(t *testing.T, sid string, numeric bool, nid int64, text string) {
		id, err := jsonrpc.MakeID(sid)
		if numeric {
			id, err = jsonrpc.MakeID(float64(nid))
		}
		require.NoError(t, err)
		// A result as go-sdk makes one (jsonrpc2.NewResponse): its encoder's
		// output, without HTML escaping.
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(map[string]any{"contents": []map[string]any{{"uri": "file:///f", "text": text}}}))
		for _, resp := range []*jsonrpc.Response{
			{ID: id, Result: bytes.TrimRight(buf.Bytes(), "\n")},
			{ID: id, Result: json.RawMessage("{\n}")}, // not compact: goes the long way
			{ID: id, Error: &jsonrpc.Error{Code: 1, Message: text}},
			{Result: json.RawMessage(`{}`)},
		} {
			want, wantErr := jsonrpc.EncodeMessage(resp)
			got, err := encodeResponse(resp)
			require.Equal(t, wantErr, err)
			require.Equal(t, string(want), string(got))
		}
	})
}

// TestJSONFastPathsAllocate: reading a request's members allocates only
// their names (encoding/json's Decoder made a token and a copy of every
// member besides), and the answer to a call is one allocation (the line), not
// EncodeMessage's reflection and second pass over the result, which a
// fallback taken by mistake would bring back.
func TestJSONFastPathsAllocate(t *testing.T) {
	frame := []byte(`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"file:///tmp/f"}}`)
	n := 0
	count := func(string, json.RawMessage) error { n++; return nil }
	require.Equal(t, 4.0, testing.AllocsPerRun(100, func() { _ = readMembers(frame, count) }), "one per member name")
	require.Equal(t, 4*101, n)

	result := json.RawMessage(`{"contents":[{"uri":"file:///tmp/f","text":"` + strings.Repeat("a", 1024) + `"}]}`)
	for _, id := range []any{float64(1<<53 - 1), "request-7"} {
		rid, err := jsonrpc.MakeID(id)
		require.NoError(t, err)
		resp := &jsonrpc.Response{ID: rid, Result: result}
		require.Equal(t, 1.0, testing.AllocsPerRun(100, func() {
			b, err := encodeResponse(resp)
			_ = append(b, '\n') // as writeLine does: within the capacity
			require.NoError(t, err)
		}), "id %v", id)
	}
}
