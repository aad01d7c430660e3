package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/server/servertest"
	"github.com/stretchr/testify/require"
)

// Request ids a client may write, and whether the server echoes them
// (exactly: the same bytes for a number, the same string for a string) or
// refuses the request with -32600 and id null.
var (
	echoedIDs = []string{`0`, `7`, `-7`, `9007199254740991`, `-9007199254740991`, `"a"`, `""`, `"1.5"`,
		`"\u00e9t\u00e9"`, `"été"`, `"\ud83d\ude00"`, `"\/\"\\"`}
	refusedIDs = []string{`1.5`, `-2.25`, `1e2`, `1E2`, `100.0`, `-0`, `-0.0`, `0e0`, `9007199254740992`,
		`9007199254740993`, `-9007199254740993`, `9223372036854775807`, `9223372036854775808`,
		`99999999999999999999`, `1e30`, `1e400`, `null`, `true`, `false`, `{}`, `{"a":1}`, `[]`, `[1]`,
		`"\ud800"`, `"\udfff"`, `"a\ud83d"`, `"\ud83d\u0041"`}
)

// rawID returns the "id" member of a JSON-RPC line as written.
func rawID(t *testing.T, line string) json.RawMessage {
	t.Helper()
	var id json.RawMessage
	require.NoError(t, readMembers(json.RawMessage(line), func(name string, v json.RawMessage) error {
		if name == "id" {
			id = v
		}
		return nil
	}), line)
	return id
}

// requireSameID checks that got is the id the client wrote as want.
func requireSameID(t *testing.T, want string, got json.RawMessage) {
	t.Helper()
	if want[0] != '"' {
		require.Equal(t, want, string(got), "a numeric id comes back byte for byte")
		return
	}
	var w, g string
	require.NoError(t, json.Unmarshal([]byte(want), &w))
	require.NoError(t, json.Unmarshal(got, &g))
	require.Equal(t, w, g, "a string id comes back as the same string")
}

// TestServeStdio_ids: on stdio, every id is echoed exactly or refused,
// never answered under another id, on every revision.
func TestServeStdio_ids(t *testing.T) {
	for _, rev := range allRevisions {
		t.Run(rev, func(t *testing.T) {
			w := newRawWire(t, newServer(t, NewConfig().WithProviders(notesProvider())))
			w.handshake(rev)
			for _, id := range echoedIDs {
				w.send(readRequest(id, rev))
				line := w.line()
				requireSameID(t, id, rawID(t, line))
				require.Nil(t, parseAnswer(t, line).Error, line)
			}
			for i, id := range refusedIDs {
				w.send(readRequest(id, rev))
				requireRefusal(t, w.line(), "null", -32600)
				w.requireServed(fmt.Sprintf(`"ok-%d"`, i), rev, id)
			}
		})
	}
}

// TestHTTP_ids: the same over Streamable HTTP, legacy sessions and
// 2026-07-28 requests alike.
func TestHTTP_ids(t *testing.T) {
	url := serveHTTP(t, newServer(t, NewConfig().WithProviders(notesProvider())), NewHTTPConfig().WithRateLimit(0, 0))
	for _, rev := range []string{"2025-03-26", "2025-11-25", "2026-07-28"} {
		hdr := httpSession(t, url, rev)
		for _, id := range echoedIDs {
			status, _, body := rawPost(t, url, hdr, readRequest(id, rev))
			require.Equal(t, http.StatusOK, status, body)
			line := sseData(t, body)
			requireSameID(t, id, rawID(t, line))
		}
		for _, id := range refusedIDs {
			status, _, body := rawPost(t, url, hdr, readRequest(id, rev))
			require.Equal(t, http.StatusBadRequest, status, "%s: %s", id, body)
			requireRefusal(t, body, "null", -32600)
		}
	}
}

// sseData returns the JSON-RPC message of a response body: the data of its
// event stream, or the body itself.
func sseData(t *testing.T, body string) string {
	t.Helper()
	for _, l := range strings.Split(body, "\n") {
		if data, ok := strings.CutPrefix(l, "data: "); ok && data != "" { // not a priming event (2025-11-25)
			return data
		}
	}
	return body
}

// TestServeStdio_idInFlight: a request reusing the id of one still in
// flight is refused with id null (go-sdk alone drops it without an
// answer), and the first request is still answered under its id.
func TestServeStdio_idInFlight(t *testing.T) {
	release := make(chan struct{})
	p := servertest.New("slow", abi.URIRoot{Scheme: "slow"}).AddText("slow:///a", "text/plain", "a").
		WithIntercept(func(ctx context.Context, _, _ string) error {
			select {
			case <-release:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	w := newRawWire(t, newServer(t, NewConfig().WithProviders(p)))
	w.handshake("2025-11-25")
	w.send(`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"slow:///a"}}`)
	w.send(`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"slow:///a"}}`)
	requireRefusal(t, w.line(), "null", -32600)
	close(release)
	a := parseAnswer(t, w.line())
	require.Equal(t, "5", string(a.ID))
	require.Nil(t, a.Error)
}
