package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckFrame(t *testing.T) {
	tests := []struct {
		line string
		code int
		id   string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0, ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`, 0, ""},
		{`not json`, -32700, ""},
		{`{"jsonrpc":"2.0",`, -32700, ""},
		{`{}`, -32600, ""},
		{`{"jsonrpc":"1.0","id":"a","method":"x"}`, -32600, `"a"`},
		{`{"jsonrpc":2,"id":7}`, -32600, ""},
		{`{"id":{"x":1},"method":"x"}`, -32600, ""},
		{`[]`, -32600, ""},
		{`[1,2]`, -32600, ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"},{}]`, -32600, ""},
		{`"str"`, -32600, ""},
		{`42`, -32600, ""},
		{`null`, -32600, ""},
	}
	for _, tc := range tests {
		id, code, msg := checkFrame([]byte(tc.line))
		require.Equal(t, tc.code, code, tc.line)
		require.Equal(t, tc.id, string(id), tc.line)
		if code != 0 {
			require.NotEmpty(t, msg)
			require.NotContains(t, msg, tc.line, "refusals never echo the input")
		}
	}
}

// TestServer_ServeStdio_badLines: malformed lines get JSON-RPC errors and
// the requests after them are still served (go-sdk alone ends the session
// at the first such line).
func TestServer_ServeStdio_badLines(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	in := strings.NewReader("not json\n" + "\n" + `{}` + "\n" + `[1]` + "\n" +
		`{"jsonrpc":"1.0","id":9,"method":"x"}` + "\n" + readLine(2, "notes:///hello") +
		strings.Repeat("x", maxFrame+10) + "\n" + readLine(3, "notes:///hello"))
	var out strings.Builder
	require.NoError(t, s.ServeStdio(t.Context(), in, &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 7, out.String())
	joined := out.String()
	require.Contains(t, joined, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700`)
	require.Contains(t, joined, `{"jsonrpc":"2.0","id":9,"error":{"code":-32600`)
	require.Contains(t, joined, `"message":"invalid request: message longer than 16 MiB"`)
	require.Contains(t, joined, `"id":2,"result"`)
	require.Contains(t, joined, `"id":3,"result"`)
}

// FuzzCheckFrame: the line check reads untrusted bytes; it must not panic
// and must accept only JSON.
func FuzzCheckFrame(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `[{"jsonrpc":"2.0"}]`, `{`, `[]`, `"x"`, `{"jsonrpc":"2.0","id":[1]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		if _, code, _ := checkFrame(b); code == 0 && !json.Valid(b) {
			t.Fatalf("accepted a line that is not JSON: %q", b)
		}
	})
}
