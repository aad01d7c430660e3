package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/require"
)

func TestDecodeFrame(t *testing.T) {
	tests := []struct {
		line  string
		whole int64   // code of a whole-frame refusal
		codes []int64 // per message: 0 = served, else the refusal code
		ids   []string
		kinds []msgKind
	}{
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, codes: []int64{0}, ids: []string{"1"}, kinds: []msgKind{kindCall}},
		{line: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, codes: []int64{0}, ids: []string{""}, kinds: []msgKind{kindNotification}},
		{line: `{"jsonrpc":"2.0","id":"r","result":{}}`, codes: []int64{0}, ids: []string{""}, kinds: []msgKind{kindResponse}},
		{line: `{"jsonrpc":"2.0","id":"r","error":{"code":-1,"message":"m","data":[1]}}`, codes: []int64{0}, ids: []string{""}, kinds: []msgKind{kindResponse}},
		{line: `not json`, whole: -32700},
		{line: `{"jsonrpc":"2.0",`, whole: -32700},
		{line: "\"\xff\"", whole: -32700},
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping"} {"a":1}`, whole: -32700},
		{line: `[]`, whole: -32600},
		{line: `{}`, codes: []int64{-32600}, ids: []string{""}, kinds: []msgKind{kindInvalid}},
		{line: `42`, codes: []int64{-32600}, ids: []string{""}, kinds: []msgKind{kindInvalid}},
		{line: `null`, codes: []int64{-32600}, ids: []string{""}, kinds: []msgKind{kindInvalid}},
		{line: `{"jsonrpc":"1.0","id":"a","method":"x"}`, codes: []int64{-32600}, ids: []string{`"a"`}, kinds: []msgKind{kindCall}},
		{line: `{"Jsonrpc":"2.0","id":3,"method":"x"}`, codes: []int64{-32600}, ids: []string{"3"}, kinds: []msgKind{kindCall}},
		{line: `{"jsonrpc":2,"id":7}`, codes: []int64{-32600}, ids: []string{"7"}, kinds: []msgKind{kindInvalid}},
		{line: `{"jsonrpc":"2.0","id":8,"method":123}`, codes: []int64{-32600}, ids: []string{"8"}, kinds: []msgKind{kindCall}},
		{line: `{"jsonrpc":"2.0","id":8,"method":"x","params":5}`, codes: []int64{-32600}, ids: []string{"8"}, kinds: []msgKind{kindCall}},
		{line: `{"jsonrpc":"2.0","id":8,"method":"x","params":null}`, codes: []int64{0}, ids: []string{"8"}, kinds: []msgKind{kindCall}},
		{line: `{"jsonrpc":"2.0","id":8,"id":9,"method":"x"}`, codes: []int64{-32600}, ids: []string{""}, kinds: []msgKind{kindInvalid}},
		{line: `{"jsonrpc":"2.0","id":{"x":1},"method":"x"}`, codes: []int64{-32600}, ids: []string{""}, kinds: []msgKind{kindCall}},
		{line: `{"jsonrpc":"2.0","id":[1],"method":"x"}`, codes: []int64{-32600}, ids: []string{""}, kinds: []msgKind{kindCall}},
		{line: `{"jsonrpc":"2.0","id":true,"method":"x"}`, codes: []int64{-32600}, ids: []string{""}, kinds: []msgKind{kindCall}},
		{line: `{"jsonrpc":"2.0","id":null,"method":"x"}`, codes: []int64{-32600}, ids: []string{""}, kinds: []msgKind{kindCall}},
		{line: `{"jsonrpc":"2.0","method":"notifications/x","params":"p"}`, codes: []int64{-32600}, ids: []string{""}, kinds: []msgKind{kindNotification}},
		{line: `{"jsonrpc":"2.0","id":1,"error":5}`, codes: []int64{-32600}, ids: []string{""}, kinds: []msgKind{kindResponse}},
		{line: `{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`, codes: []int64{-32600}, ids: []string{""}, kinds: []msgKind{kindResponse}},
		{line: `{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}`, codes: []int64{-32600}, ids: []string{""}, kinds: []msgKind{kindResponse}},
		{line: `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`, codes: []int64{-32600}, ids: []string{""}, kinds: []msgKind{kindResponse}},
		{line: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}`, codes: []int64{-32600}, ids: []string{""}, kinds: []msgKind{kindResponse}},
		{line: `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
			codes: []int64{0, 0}, ids: []string{"1", ""}, kinds: []msgKind{kindCall, kindNotification}},
		{line: `[1,{"jsonrpc":"2.0","id":"x","method":7}]`, codes: []int64{-32600, -32600}, ids: []string{"", `"x"`}, kinds: []msgKind{kindInvalid, kindCall}},
		// One reading of a message: a member given twice where the
		// envelope check reads (params, params._meta) is refused.
		{line: `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"a:b","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"_meta":{}}}`,
			codes: []int64{-32602}, ids: []string{"1"}, kinds: []msgKind{kindCall}},
		{line: `{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{},"_met\u0061":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			codes: []int64{-32602}, ids: []string{"1"}, kinds: []msgKind{kindCall}},
		{line: `{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2025-03-26"}}}`,
			codes: []int64{-32602}, ids: []string{"1"}, kinds: []msgKind{kindCall}},
		{line: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"protocolVersion":"2025-11-25"}}`,
			codes: []int64{-32602}, ids: []string{"1"}, kinds: []msgKind{kindCall}},
		{line: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"requestId":2}}`,
			codes: []int64{-32602}, ids: []string{""}, kinds: []msgKind{kindNotification}},
		{line: `{"jsonrpc":"2.0","id":1,"method":"x","params":{` + manyMembers(40) + `,"m0":1}}`,
			codes: []int64{-32602}, ids: []string{"1"}, kinds: []msgKind{kindCall}},
		{line: `{"jsonrpc":"2.0","id":1,"method":"x","params":{` + manyMembers(40) + `}}`,
			codes: []int64{0}, ids: []string{"1"}, kinds: []msgKind{kindCall}},
		{line: `{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"a":{"b":1,"b":2}},"ref":{"uri":"x"},"Ref":{}}}`,
			codes: []int64{0}, ids: []string{"1"}, kinds: []msgKind{kindCall}},
		{line: `[{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{},"_meta":{}}},{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
			codes: []int64{-32602, 0}, ids: []string{"1", "2"}, kinds: []msgKind{kindCall, kindCall}},
	}
	for _, tc := range tests {
		msgs, _, whole := decodeFrame([]byte(tc.line))
		if tc.whole != 0 {
			require.NotNil(t, whole, tc.line)
			require.Equal(t, tc.whole, whole.Code, tc.line)
			continue
		}
		require.Nil(t, whole, tc.line)
		require.Len(t, msgs, len(tc.codes), tc.line)
		for i, m := range msgs {
			require.Equal(t, tc.kinds[i], m.kind, tc.line)
			require.Equal(t, tc.ids[i], string(m.id), tc.line)
			if tc.codes[i] == 0 {
				require.Nil(t, m.refusal, tc.line)
				require.NotNil(t, m.msg, tc.line)
				continue
			}
			require.NotNil(t, m.refusal, tc.line)
			require.Nil(t, m.msg, tc.line)
			require.Equal(t, tc.codes[i], m.refusal.Code, tc.line)
			require.NotContains(t, m.refusal.Message, tc.line, "refusals never echo the input")
		}
	}
}

// manyMembers is n distinct members "m0":0, "m1":0, ...
func manyMembers(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`"m%d":0`, i)
	}
	return strings.Join(parts, ",")
}

// TestCheckParams: the refusal of a duplicate names it, and the revision
// a request picks is read from its one _meta.
func TestCheckParams(t *testing.T) {
	stateless, err := checkParams(json.RawMessage(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`))
	require.NoError(t, err)
	require.True(t, stateless)
	stateless, err = checkParams(json.RawMessage(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}`))
	require.NoError(t, err)
	require.False(t, stateless)
	_, err = checkParams(json.RawMessage(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"_meta":{}}`))
	require.ErrorContains(t, err, `member "_meta" of params is given twice`)
	_, err = checkParams(json.RawMessage(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":""}}`))
	require.ErrorContains(t, err, `member "io.modelcontextprotocol/protocolVersion" of params._meta is given twice`)
}

// TestCheckID: an id is either echoed exactly or refused.
func TestCheckID(t *testing.T) {
	echoed := []string{`0`, `1`, `-1`, `42`, `9007199254740991`, `-9007199254740991`, `""`, `"a"`,
		`"\u00e9"`, `"é"`, `"\ud83d\ude00"`, `"😀"`, `"\"\\\/"`, `"1.5"`}
	for _, raw := range echoed {
		id, err := checkID(json.RawMessage(raw))
		require.NoError(t, err, raw)
		requireEchoed(t, raw, id)
	}
	refused := []string{`1.5`, `1.0`, `1e2`, `1E2`, `-0`, `-0.0`, `0e0`, `9007199254740992`, `-9007199254740992`,
		`9223372036854775808`, `99999999999999999999`, `1e400`, `null`, `true`, `false`, `{}`, `[]`, `[1]`, `{"a":1}`,
		`"\ud800"`, `"\udc00"`, `"\ud800\ud800"`, `"x\ud83d"`, `"\ud83dx"`}
	for _, raw := range refused {
		_, err := checkID(json.RawMessage(raw))
		require.Error(t, err, raw)
	}
}

// requireEchoed checks that go-sdk's answer under id carries raw: the
// same bytes for a number, the same string for a string.
func requireEchoed(t testing.TB, raw string, id jsonrpc.ID) {
	t.Helper()
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: json.RawMessage("{}")})
	require.NoError(t, err)
	var resp struct {
		ID json.RawMessage `json:"id"`
	}
	require.NoError(t, json.Unmarshal(b, &resp))
	if raw[0] != '"' {
		require.Equal(t, raw, string(resp.ID), "a numeric id is echoed byte for byte")
		return
	}
	var want, got string
	require.NoError(t, json.Unmarshal([]byte(raw), &want))
	require.NoError(t, json.Unmarshal(resp.ID, &got))
	require.Equal(t, want, got, "a string id is echoed as the same string")
	require.NotContains(t, got, "\ufffd", "no unpaired surrogate became U+FFFD")
}

// FuzzDecodeFrame: the envelope check reads untrusted bytes. It must not
// panic; it accepts only JSON; an accepted call's id is echoed exactly.
func FuzzDecodeFrame(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `[{"jsonrpc":"2.0"}]`, `{`, `[]`, `"x"`,
		`{"jsonrpc":"2.0","id":[1]}`, `{"jsonrpc":"2.0","id":"\ud800","method":"x"}`, `{"jsonrpc":"2.0","id":1e2,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}`, `{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{}}}`} {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"a":1,"a":2}}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{},"_met\u0061":{}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		msgs, _, whole := decodeFrame(b)
		if whole != nil {
			return
		}
		require.True(t, json.Valid(b), "accepted a frame that is not JSON: %q", b)
		for _, m := range msgs {
			if req, ok := m.msg.(*jsonrpc.Request); ok && len(req.Params) > 0 && req.Params[0] == '{' {
				require.False(t, dupKeys(t, req.Params), "accepted params with a member twice: %s", req.Params)
				var p struct {
					Meta json.RawMessage `json:"_meta"`
				}
				if json.Unmarshal(req.Params, &p) == nil && len(p.Meta) > 0 && p.Meta[0] == '{' {
					require.False(t, dupKeys(t, p.Meta), "accepted _meta with a member twice: %s", p.Meta)
				}
			}
			if m.refusal != nil || m.kind != kindCall {
				continue
			}
			if strings.HasPrefix(strings.TrimSpace(string(b)), "[") {
				continue
			}
			var id json.RawMessage
			require.NoError(t, readMembers(b, func(name string, v json.RawMessage) error {
				if name == "id" {
					id = v
				}
				return nil
			}))
			requireEchoed(t, string(id), m.msg.(*jsonrpc.Request).ID)
		}
	})
}

// dupKeys reports whether the JSON object raw names a member twice, as
// encoding/json's tokenizer reads it (independent of readMembers).
func dupKeys(t testing.TB, raw json.RawMessage) bool {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	_, err := dec.Token() // {
	require.NoError(t, err)
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		require.NoError(t, err)
		name := tok.(string)
		if seen[name] {
			return true
		}
		seen[name] = true
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return false
}

// BenchmarkDecodeFrame: the envelope check of a typical 2026-07-28 read,
// which reads params and params._meta (each member checked for a twin).
func BenchmarkDecodeFrame(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"notes:///hello",` + stdioMeta + `}}`)
	b.ReportAllocs()
	for b.Loop() {
		if msgs, _, whole := decodeFrame(line); whole != nil || msgs[0].refusal != nil || !msgs[0].stateless {
			b.Fatal("refused")
		}
	}
}
