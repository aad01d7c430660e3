package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/server/servertest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/require"
)

// TestHTTP_modernHeaderRules: the 2026-07-28 HTTP rules, on the wire.
func TestHTTP_modernHeaderRules(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	url := serveHTTP(t, s, NewHTTPConfig())
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + stdioMeta + `}}`
	tests := []struct {
		name   string
		hdr    map[string]string
		body   string
		status int
		code   string
	}{
		{"valid read", modernHeaders("resources/read", "notes:///hello"), modernRead("notes:///hello"), 200, ""},
		{"no Mcp-Name", modernHeaders("resources/read", ""), modernRead("notes:///hello"), 400, "-32020"},
		{"Mcp-Name mismatch", modernHeaders("resources/read", "notes:///other"), modernRead("notes:///hello"), 400, "-32020"},
		{"Mcp-Method mismatch", modernHeaders("resources/list", "notes:///hello"), modernRead("notes:///hello"), 400, "-32020"},
		{"header version != _meta", map[string]string{"MCP-Protocol-Version": "2025-11-25", "Mcp-Method": "resources/read", "Mcp-Name": "notes:///hello"},
			modernRead("notes:///hello"), 400, "-32020"},
		{"no version header", map[string]string{"Mcp-Method": "resources/read", "Mcp-Name": "notes:///hello"}, modernRead("notes:///hello"), 400, "-32020"},
		{"unsupported version", map[string]string{"MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "resources/read", "Mcp-Name": "notes:///x"},
			strings.Replace(modernRead("notes:///x"), "2026-07-28", "2099-01-01", 1), 400, "-32022"},
		{"removed ping", modernHeaders("ping", ""), ping, 404, "-32601"},
		{"removed initialize", modernHeaders("initialize", ""), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"x","version":"1"},` + stdioMeta + `}}`, 404, "-32601"},
		{"ignored session id", map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "resources/read", "Mcp-Name": "notes:///hello", "Mcp-Session-Id": "bogus"},
			modernRead("notes:///hello"), 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, hdr, body := rawPost(t, url, tt.hdr, tt.body)
			require.Equal(t, tt.status, status, body)
			require.Contains(t, body, tt.code)
			require.Empty(t, hdr.Get("Mcp-Session-Id"), "2026-07-28 never mints a session")
		})
	}
}

// TestHTTP_legacyWire: legacy raw requests: initialize mints a session; an
// unknown session is 404; GET without a session is 405.
func TestHTTP_legacyWire(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	url := serveHTTP(t, s, NewHTTPConfig())
	status, hdr, body := rawPost(t, url, nil,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	require.Equal(t, http.StatusOK, status, body)
	require.NotEmpty(t, hdr.Get("Mcp-Session-Id"))
	require.Contains(t, body, `"protocolVersion":"2025-11-25"`)

	status, _, _ = rawPost(t, url, map[string]string{"Mcp-Session-Id": "nope", "MCP-Protocol-Version": "2025-11-25"},
		`{"jsonrpc":"2.0","id":2,"method":"resources/list"}`)
	require.Equal(t, http.StatusNotFound, status)

	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	status, _, _ = do(t, req)
	require.Equal(t, http.StatusMethodNotAllowed, status)
}

// TestHTTP_bodyLimit: a body over the limit is 413 and reaches no handler.
func TestHTTP_bodyLimit(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	url := serveHTTP(t, s, NewHTTPConfig().WithMaxBodyBytes(512))
	big := modernRead("notes:///" + strings.Repeat("a", 600))
	status, _, body := rawPost(t, url, modernHeaders("resources/read", "notes:///"+strings.Repeat("a", 600)), big)
	require.Equal(t, http.StatusRequestEntityTooLarge, status, body)
	status, _, body = rawPost(t, url, modernHeaders("resources/read", "notes:///hello"), modernRead("notes:///hello"))
	require.Equal(t, http.StatusOK, status, body)
}

func TestCheckBody_peek(t *testing.T) {
	h, err := newServer(t, NewConfig()).newHTTPHandler(NewHTTPConfig())
	require.NoError(t, err)
	one, err := jsonrpc.MakeID(float64(1))
	require.NoError(t, err)
	listen, err := jsonrpc.MakeID("L")
	require.NoError(t, err)
	tests := []struct {
		body string
		want peek
	}{
		{modernRead("x:///a"), peek{method: "resources/read", modern: true, id: &one}},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`, peek{method: "initialize", id: &one}},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, peek{}},
		{`{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}}`, peek{method: "resources/list", id: &one}},
		{`{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{"_META":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, peek{method: "resources/list", id: &one}},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L"}}`, peek{method: "notifications/cancelled", notification: true, cancels: &listen}},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"a":1}}}`, peek{method: "notifications/cancelled", notification: true}},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, peek{method: "notifications/initialized", notification: true}},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(http.MethodPost, MCPPath, nil)
		_, pk, refused := h.checkBody(r, []byte(tt.body))
		require.Nil(t, refused, tt.body)
		require.Equal(t, tt.want, pk, tt.body)
	}
}

// TestHTTP_secondInitialize: go-sdk's plain error for a second initialize
// on a session reaches the client with a code, not 0.
func TestHTTP_secondInitialize(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	url := serveHTTP(t, s, NewHTTPConfig())
	sess := legacySession(t, url)
	_, _, body := rawPost(t, url, sess,
		`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	require.Contains(t, body, `"code":-32600`)
}

// TestHTTP_maxSessions: an initialize past the session cap gets 503;
// 2026-07-28 requests, which have no session, still work.
func TestHTTP_maxSessions(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	url := serveHTTP(t, s, NewHTTPConfig().WithMaxSessions(1))
	legacySession(t, url)
	status, hdr, _ := rawPost(t, url, nil,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	require.Equal(t, http.StatusServiceUnavailable, status)
	require.NotEmpty(t, hdr.Get("Retry-After"))
	status, _, _ = rawPost(t, url, modernHeaders("resources/read", "notes:///hello"), modernRead("notes:///hello"))
	require.Equal(t, http.StatusOK, status)
}

// TestHTTP_disconnectCancels: on 2026-07-28 a client that goes away
// cancels its request, and the provider call with it.
func TestHTTP_disconnectCancels(t *testing.T) {
	entered, cancelled := make(chan struct{}), make(chan struct{})
	p := servertest.New("hang", abi.URIRoot{Scheme: "hang"}).AddText("hang:///a", "text/plain", "a").
		WithIntercept(func(ctx context.Context, _, _ string) error {
			close(entered)
			<-ctx.Done()
			close(cancelled)
			return ctx.Err()
		})
	s := newServer(t, NewConfig().WithProviders(p).WithCallTimeout(time.Minute))
	url := serveHTTP(t, s, NewHTTPConfig())
	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(modernRead("hang:///a")))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range modernHeaders("resources/read", "hang:///a") {
		req.Header.Set(k, v)
	}
	go func() {
		<-entered // the call is in the provider: the client goes away
		cancel()
	}()
	_, err = http.DefaultClient.Do(req)
	require.Error(t, err)
	select {
	case <-cancelled:
	case <-time.After(testkit.Wait):
		t.Fatal("the provider call was not cancelled")
	}
}
