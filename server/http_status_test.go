package server

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHTTP_modernErrorStatus: on 2026-07-28 an error result of a request
// the server served (not found, an invalid cursor or uri) is a JSON-RPC
// response sent with 200, so that a dual-era client does not take it for a
// legacy server's 400; the transport's own refusals keep their status (400
// for a request without its _meta, 404 for an unknown method).
func TestHTTP_modernErrorStatus(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	url := serveHTTP(t, s, NewHTTPConfig())
	tests := []struct {
		name       string
		method     string
		nameHeader string
		body       string
		status     int
		code       float64
	}{
		{"not found", "resources/read", "notes:///missing", modernRead("notes:///missing"), http.StatusOK, -32602},
		{"unowned uri", "resources/read", "other:///x", modernRead("other:///x"), http.StatusOK, -32602},
		{"hostile uri", "resources/read", "notes:///a/../b", modernRead("notes:///a/../b"), http.StatusOK, -32602},
		{"invalid cursor", "resources/list", "",
			`{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{"cursor":"nope",` + stdioMeta + `}}`, http.StatusOK, -32602},
		{"missing _meta", "resources/read", "notes:///hello",
			`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"notes:///hello","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			http.StatusBadRequest, -32602},
		{"unknown method", "nope/nope", "",
			`{"jsonrpc":"2.0","id":1,"method":"nope/nope","params":{` + stdioMeta + `}}`, http.StatusNotFound, -32601},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, hdr, body := rawPost(t, url, modernHeaders(tt.method, tt.nameHeader), tt.body)
			require.Equal(t, tt.status, status, body)
			require.Equal(t, "application/json", hdr.Get("Content-Type"))
			var resp struct {
				ID    float64 `json:"id"`
				Error struct {
					Code float64         `json:"code"`
					Data json.RawMessage `json:"data"`
				} `json:"error"`
			}
			require.NoError(t, json.Unmarshal([]byte(body), &resp), body)
			require.Equal(t, tt.code, resp.Error.Code, body)
			require.Equal(t, 1.0, resp.ID)
			if tt.name == "not found" {
				require.JSONEq(t, `{"uri":"notes:///missing"}`, string(resp.Error.Data))
			}
		})
	}
}
