package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/server/auth"
)

// TestHTTP_hostAndOrigin: DNS rebinding (a foreign Host) and cross-site
// browser requests (a foreign Origin) get 403 before any MCP handling;
// localhost is accepted on a loopback connection; allowlists extend both.
func TestHTTP_hostAndOrigin(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	def := serveHTTP(t, s, NewHTTPConfig())
	allow := serveHTTP(t, s, NewHTTPConfig().WithAllowedHosts("mcp.example.com", "*.corp.example").
		WithAllowedOrigins("https://app.example.com"))
	tests := []struct {
		name         string
		url          string
		host, origin string
		secFetchSite string
		status       int
	}{
		{"localhost", def, "localhost:1234", "", "", 200},
		{"loopback IP", def, "127.0.0.1:1234", "", "", 200},
		{"IPv6 loopback", def, "[::1]:1234", "", "", 200},
		{"rebinding host", def, "evil.example:1234", "", "", 403},
		{"rebinding host, same origin", def, "evil.example", "http://evil.example", "", 403},
		{"cross-site origin", def, "localhost", "https://evil.example", "", 403},
		{"null origin", def, "localhost", "null", "", 403},
		{"localhost origin", def, "127.0.0.1:9", "http://localhost:6274", "", 200},
		{"same origin", def, "127.0.0.1:9", "http://127.0.0.1:9", "", 200},
		{"cross-site fetch without origin", def, "localhost", "", "cross-site", 403},
		{"allowed host", allow, "mcp.example.com", "", "", 200},
		{"allowed host, case and port", allow, "MCP.Example.COM:443", "", "", 200},
		{"allowed subdomain", allow, "a.corp.example", "", "", 200},
		{"not the parent of a wildcard", allow, "corp.example", "", "", 403},
		{"allowed origin", allow, "mcp.example.com", "https://app.example.com", "", 200},
		{"other origin", allow, "mcp.example.com", "https://app.example.org", "", 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, tt.url, strings.NewReader(modernRead("notes:///hello")))
			require.NoError(t, err)
			for k, v := range modernHeaders("resources/read", "notes:///hello") {
				req.Header.Set(k, v)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Host = tt.host
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			if tt.secFetchSite != "" {
				req.Header.Set("Sec-Fetch-Site", tt.secFetchSite)
			}
			status, hdr, body := do(t, req)
			require.Equal(t, tt.status, status, body)
			if tt.origin != "" && status == 200 {
				require.Equal(t, tt.origin, hdr.Get("Access-Control-Allow-Origin"))
			}
		})
	}
}

// TestHTTP_corsPreflight: a preflight from an accepted origin is answered
// without authentication; one from a foreign origin is refused.
func TestHTTP_corsPreflight(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	url := serveHTTP(t, s, NewHTTPConfig().WithAuth(auth.NewConfig().WithStaticToken("alice", "secret-token")))
	for origin, want := range map[string]int{"http://localhost:6274": 204, "https://evil.example": 403} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodOptions, url, nil)
		require.NoError(t, err)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		status, hdr, _ := do(t, req)
		require.Equal(t, want, status, origin)
		if want == 204 {
			require.Contains(t, hdr.Get("Access-Control-Allow-Headers"), "Mcp-Session-Id")
			require.Contains(t, hdr.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id")
		}
	}
}

func TestHostPattern(t *testing.T) {
	for in, want := range map[string]string{
		"Example.COM.": "example.com", "*": "*", "*.Example.com": "*.example.com", "[::1]": "::1", "10.1.2.3": "10.1.2.3",
	} {
		got, err := hostPattern(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "example.com:80", "http://x", "a b", "user@host", "*.", "a*b"} {
		_, err := hostPattern(bad)
		require.Error(t, err, bad)
	}
}

// TestHTTP_probesHostChecked: on a loopback connection, /healthz, /readyz
// and extra routes (/metrics) answer only allowed Hosts and Origins, as
// /mcp does: a DNS rebinding page cannot read them.
func TestHTTP_probesHostChecked(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("provider=notes\n")) })
	mcpURL := serveHTTP(t, s, NewHTTPConfig().WithRoute("GET /metrics", metrics).WithAllowedHosts("mcp.example.com"))
	base := strings.TrimSuffix(mcpURL, MCPPath)
	tests := []struct {
		name, host, origin string
		status             int
	}{
		{"localhost", "localhost:1234", "", 200},
		{"loopback IP", "127.0.0.1", "", 200},
		{"allowed host", "mcp.example.com", "", 200},
		{"rebinding host", "evil.example:1234", "", 403},
		{"rebinding host, same origin", "evil.example", "http://evil.example", 403},
		{"cross-site origin", "localhost", "https://evil.example", 403},
	}
	for _, path := range []string{HealthzPath, ReadyzPath, "/metrics"} {
		for _, tt := range tests {
			t.Run(path+" "+tt.name, func(t *testing.T) {
				req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path, nil)
				require.NoError(t, err)
				req.Host = tt.host
				if tt.origin != "" {
					req.Header.Set("Origin", tt.origin)
				}
				status, _, body := do(t, req)
				require.Equal(t, tt.status, status, body)
				if status == http.StatusForbidden {
					require.NotContains(t, body, "notes", "a refused probe tells nothing")
					require.Contains(t, body, "not allowed")
				}
			})
		}
	}
}
