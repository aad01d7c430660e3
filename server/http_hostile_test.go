package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// httpSession opens a session of rev over raw HTTP and returns the headers
// of its requests: a legacy session's id and version, or the 2026-07-28
// headers of a read.
func httpSession(t *testing.T, url, rev string) map[string]string {
	t.Helper()
	if revision(rev).stateless() {
		return modernHeaders("resources/read", "notes:///hello")
	}
	status, hdr, body := rawPost(t, url, nil, fmt.Sprintf(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`, rev))
	require.Equal(t, http.StatusOK, status, body)
	session := map[string]string{"Mcp-Session-Id": hdr.Get("Mcp-Session-Id"), "MCP-Protocol-Version": rev}
	status, _, body = rawPost(t, url, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(t, http.StatusAccepted, status, body)
	return session
}

// requireServedHTTP checks that the session still serves a read.
func requireServedHTTP(t *testing.T, url string, hdr map[string]string, id, rev, after string) {
	t.Helper()
	status, _, body := rawPost(t, url, hdr, readRequest(id, rev))
	require.Equal(t, http.StatusOK, status, "after %s: %s", after, body)
	require.Contains(t, body, `"id":`+id, "after %s", after)
	require.Contains(t, body, "Hello, world", "after %s", after)
}

// TestHTTP_malformedKeepsSession: on Streamable HTTP too, every malformed
// message gets 400 with its JSON-RPC error (a call's id echoed when it can
// be, else null), on every revision, and the session serves on. go-sdk
// alone answers a plain-text 400 for most and changes some ids.
func TestHTTP_malformedKeepsSession(t *testing.T) {
	for _, rev := range allRevisions {
		t.Run(rev, func(t *testing.T) {
			url := serveHTTP(t, newServer(t, NewConfig().WithProviders(notesProvider())), NewHTTPConfig().WithRateLimit(0, 0))
			hdr := httpSession(t, url, rev)
			for i, h := range hostileMessages {
				status, rh, body := rawPost(t, url, hdr, h.line)
				switch {
				case h.id != "":
					require.Equal(t, http.StatusBadRequest, status, h.line)
					require.Equal(t, "application/json", rh.Get("Content-Type"), h.line)
					requireRefusal(t, body, h.id, h.code)
				case status == http.StatusBadRequest: // a malformed notification or response, or headers that do not match it
					require.NotNil(t, parseAnswer(t, body).Error, h.line)
				default: // a well-formed notification or response
					require.Equal(t, http.StatusAccepted, status, "%s: %s", h.line, body)
				}
				requireServedHTTP(t, url, hdr, fmt.Sprintf(`"ok-%d"`, i), rev, h.line)
			}
		})
	}
}

// TestHTTP_batches: a batch is refused with one -32600 on a session of
// 2025-06-18 or later, whatever header it carries; on 2025-03-26 a batch
// holding a malformed message is refused whole, each call answered.
func TestHTTP_batches(t *testing.T) {
	url := serveHTTP(t, newServer(t, NewConfig().WithProviders(notesProvider())), NewHTTPConfig().WithRateLimit(0, 0))
	good := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":"two","method":"ping"}]`
	for _, rev := range []string{"2025-06-18", "2025-11-25"} {
		hdr := httpSession(t, url, rev)
		status, _, body := rawPost(t, url, hdr, good)
		require.Equal(t, http.StatusBadRequest, status, body)
		requireRefusal(t, body, "null", -32600)
		hdr["MCP-Protocol-Version"] = "2025-03-26"
		status, _, body = rawPost(t, url, hdr, good)
		require.Equal(t, http.StatusBadRequest, status, "a header cannot bring batches back to a %s session: %s", rev, body)
	}
	status, _, body := rawPost(t, url, modernHeaders("resources/read", "notes:///hello"), "["+readRequest("1", "2026-07-28")+"]")
	require.Equal(t, http.StatusBadRequest, status, body)
	requireRefusal(t, body, "null", -32600)

	hdr := httpSession(t, url, "2025-03-26")
	status, _, body = rawPost(t, url, hdr, good)
	require.Equal(t, http.StatusOK, status, body)
	require.Contains(t, body, `"id":1`)
	require.Contains(t, body, `"id":"two"`)
	status, _, body = rawPost(t, url, hdr, `[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}]`)
	require.Equal(t, http.StatusBadRequest, status, body)
	var refused []answer
	require.NoError(t, json.Unmarshal([]byte(body), &refused), body)
	require.Len(t, refused, 2)
	require.Equal(t, "3", string(refused[0].ID))
	require.Equal(t, "null", string(refused[1].ID))
	requireServedHTTP(t, url, hdr, `"after"`, "2025-03-26", "a refused batch")
}

// TestHTTP_duplicateMetaRefused: over HTTP too, a request with _meta twice
// (the 2026-07-28 one, then {}) is refused naming the duplicate, inside a
// 2025-03-26 batch and alone, and nothing of it is served.
func TestHTTP_duplicateMetaRefused(t *testing.T) {
	url := serveHTTP(t, newServer(t, NewConfig().WithProviders(notesProvider())), NewHTTPConfig().WithRateLimit(0, 0))
	twice := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"notes:///hello",` + stdioMeta + `,"_meta":{}}}`
	hdr := httpSession(t, url, "2025-03-26")
	status, _, body := rawPost(t, url, hdr, `[`+twice+`,{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	require.Equal(t, http.StatusBadRequest, status, body)
	require.NotContains(t, body, "Hello, world")
	require.Contains(t, body, `member \"_meta\" of params is given twice`)
	requireServedHTTP(t, url, hdr, `"after"`, "2025-03-26", "a refused batch")

	status, _, body = rawPost(t, url, modernHeaders("resources/read", "notes:///hello"), twice)
	require.Equal(t, http.StatusBadRequest, status, body)
	requireRefusal(t, body, "1", -32602)
}
