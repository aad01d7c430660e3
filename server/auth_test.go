package server

import (
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/server/auth"
)

// bearer is an http.RoundTripper that adds a bearer token.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func bearerClient(token string) *http.Client { return &http.Client{Transport: bearer{token}} }

func staticAuth() auth.Config {
	return auth.NewConfig().WithStaticToken("alice", "alice-secret").WithStaticToken("", "bob-secret")
}

// TestHTTP_staticTokens: the bearer token decides, on the wire.
func TestHTTP_staticTokens(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	url := serveHTTP(t, s, NewHTTPConfig().WithAuth(staticAuth()))
	tests := []struct {
		name      string
		auth      string
		status    int
		challenge string
	}{
		{"alice", "Bearer alice-secret", 200, ""},
		{"bob, scheme case", "bearer bob-secret", 200, ""},
		{"no credentials", "", 401, `Bearer realm="mcp-wasm"`},
		{"unknown token", "Bearer nope", 401, `error="invalid_token"`},
		{"prefix of a token", "Bearer alice-secre", 401, `error="invalid_token"`},
		{"basic auth", "Basic YWxpY2U6eA==", 400, `error="invalid_request"`},
		{"empty bearer", "Bearer ", 400, `error="invalid_request"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdr := modernHeaders("resources/read", "notes:///hello")
			if tt.auth != "" {
				hdr["Authorization"] = tt.auth
			}
			status, h, body := rawPost(t, url, hdr, modernRead("notes:///hello"))
			require.Equal(t, tt.status, status, body)
			require.Contains(t, h.Get("WWW-Authenticate"), tt.challenge)
			require.NotContains(t, h.Get("WWW-Authenticate"), "resource_metadata", "no OAuth, no metadata")
		})
	}
}

// TestHTTP_sessionBoundToSubject: a legacy session created by alice cannot
// be used by bob, even with a valid token of his own.
func TestHTTP_sessionBoundToSubject(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	url := serveHTTP(t, s, NewHTTPConfig().WithAuth(staticAuth()))
	alice := connectHTTP(t, url, "2025-11-25", bearerClient("alice-secret"), nil)
	_, err := alice.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///hello"})
	require.NoError(t, err)

	list := `{"jsonrpc":"2.0","id":5,"method":"resources/list"}`
	hdr := map[string]string{"Mcp-Session-Id": alice.ID(), "MCP-Protocol-Version": "2025-11-25", "Authorization": "Bearer bob-secret"}
	status, _, body := rawPost(t, url, hdr, list)
	require.Equal(t, http.StatusForbidden, status, body)
	hdr["Authorization"] = "Bearer alice-secret"
	status, _, body = rawPost(t, url, hdr, list)
	require.Equal(t, http.StatusOK, status, body)
}

// TestHTTP_modernWithToken: a 2026-07-28 client with a token is served;
// without one it cannot even connect.
func TestHTTP_modernWithToken(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	url := serveHTTP(t, s, NewHTTPConfig().WithAuth(staticAuth()))
	cs := connectHTTP(t, url, "2026-07-28", bearerClient("bob-secret"), nil)
	_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///hello"})
	require.NoError(t, err)

	client := mcp.NewClient(&mcp.Implementation{Name: "anon", Version: "1"}, nil)
	anon, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err == nil {
		_, err = anon.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///hello"})
		_ = anon.Close()
	}
	require.ErrorContains(t, err, "Unauthorized")
}
