package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// The conformance suite's server-stateless scenario (0.2.0-alpha.12) runs
// four checks only through diagnostic tools a server must list; a server
// without tools gets "Not testable" for each (see
// .ci/conformance/modern.yml). This file checks what they check, on the
// wire, for every method mcp-wasm serves over 2026-07-28 HTTP:
//
//   - sep-2575-server-rejects-undeclared-capability and
//     sep-2575-missing-capability-http-400: a request needing a client
//     capability the client did not declare must fail with -32021 and HTTP
//     400. No method mcp-wasm serves needs one: with clientCapabilities {}
//     every one succeeds, and no -32021 ever comes back.
//   - sep-2575-http-server-no-independent-requests-on-stream: a response
//     stream carries no server-to-client request (a message with both id
//     and method).
//   - sep-2575-server-no-log-without-loglevel: no notifications/message
//     unless the request's _meta asks for a logLevel; mcp-wasm sends none.

// wireMessage is any JSON-RPC message, as read from a response.
type wireMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Error  *struct {
		Code int64 `json:"code"`
	} `json:"error"`
}

// messages returns the JSON-RPC messages of a response body, an SSE stream
// (data: lines) or a single JSON object.
func messages(t *testing.T, body string) []wireMessage {
	t.Helper()
	var raws []string
	if strings.HasPrefix(strings.TrimSpace(body), "{") {
		raws = []string{body}
	}
	for _, l := range strings.Split(body, "\n") {
		if d, ok := strings.CutPrefix(l, "data:"); ok && strings.TrimSpace(d) != "" {
			raws = append(raws, d)
		}
	}
	var out []wireMessage
	for _, r := range raws {
		var m wireMessage
		require.NoError(t, json.Unmarshal([]byte(r), &m), "message %q", r)
		out = append(out, m)
	}
	return out
}

// requireOnlyTheAnswer checks msgs hold exactly one response, successful,
// and nothing a client did not ask for.
func requireOnlyTheAnswer(t *testing.T, what string, msgs []wireMessage) {
	t.Helper()
	answers := 0
	for _, m := range msgs {
		hasID := len(m.ID) > 0 && string(m.ID) != "null"
		require.False(t, hasID && m.Method != "", "%s: server-to-client request %s on the response stream", what, m.Method)
		require.NotEqual(t, "notifications/message", m.Method, "%s: a log notification nobody asked for", what)
		if m.Method == "" {
			answers++
			require.Nil(t, m.Error, "%s: error %+v with clientCapabilities {}", what, m.Error)
		}
	}
	require.Equal(t, 1, answers, "%s: want exactly one response", what)
}

func TestStateless_noClientCapabilityNoRequestNoLog(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()).withNotifyDelay(10*time.Millisecond))
	url := serveHTTP(t, s, NewHTTPConfig())
	params := func(p string) string {
		if p != "" {
			p += ","
		}
		return `{` + p + stdioMeta + `}`
	}
	tests := []struct {
		method, name, params string
	}{
		{"server/discover", "", ""},
		{"resources/list", "", ""},
		{"resources/templates/list", "", ""},
		{"resources/read", "notes:///hello", `"uri":"notes:///hello"`},
		{"completion/complete", "", `"ref":{"type":"ref/resource","uri":"notes:///items/{id}"},"argument":{"name":"id","value":"1"}`},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","id":7,"method":"` + tt.method + `","params":` + params(tt.params) + `}`
			status, _, resp := rawPost(t, url, modernHeaders(tt.method, tt.name), body)
			require.Equal(t, http.StatusOK, status, resp)
			requireOnlyTheAnswer(t, tt.method, messages(t, resp))
		})
	}

	// A listen stream carries its acknowledgement and the notifications
	// asked for: no request, no log message.
	stream := openStream(t, url, http.MethodPost, nil,
		`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"resourcesListChanged":true,"resourceSubscriptions":["notes:///hello"]},`+stdioMeta+`}}`)
	lines := bufioLines(stream)
	waitLine(t, lines, "notifications/subscriptions/acknowledged")
	s.ResourcesUpdated("notes", "notes:///hello")
	s.ResourceListChanged()
	var seen []string
	deadline := time.After(testkit.Wait)
	for len(seen) < 2 {
		select {
		case l, ok := <-lines:
			require.True(t, ok, "listen stream ended early")
			d, isData := strings.CutPrefix(l, "data:")
			if !isData {
				continue
			}
			var m wireMessage
			require.NoError(t, json.Unmarshal([]byte(d), &m))
			require.False(t, len(m.ID) > 0 && m.Method != "", "server-to-client request %s on a listen stream", m.Method)
			require.NotEqual(t, "notifications/message", m.Method)
			seen = append(seen, m.Method)
		case <-deadline:
			t.Fatalf("listen stream: got %v, want the update and the list change", seen)
		}
	}
	require.ElementsMatch(t, []string{notifyResourceUpdated, notifyListChanged}, seen)
}
