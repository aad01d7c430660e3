package server

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/server/auth"
	"github.com/mcp-wasm/mcp-wasm/server/auth/authtest"
)

// collidingAuth accepts the static token "alice-secret" for subject alice
// and JWTs of iss; the tokens that follow all say "alice", in three
// namespaces: the static token, a JWT's sub, a JWT's client_id.
func collidingAuth(t *testing.T, iss *authtest.Issuer) (cfg auth.Config, static, sub, clientID string) {
	cfg = auth.NewConfig().WithStaticToken("alice", "alice-secret").
		WithOAuth(auth.OAuthConfig{Resource: authtest.Resource, Issuer: iss.URL()})
	sub = iss.Sign(t, jwt.SigningMethodRS256, "rsa1", nil, iss.Claims(map[string]any{"sub": "alice"}))
	clientID = iss.Sign(t, jwt.SigningMethodRS256, "rsa1", nil, iss.Claims(map[string]any{"sub": nil, "client_id": "alice"}))
	return cfg, "alice-secret", sub, clientID
}

// TestHTTP_principalSessionNotShared: a legacy session opened with the
// static token of subject alice refuses a JWT whose sub (or client_id) is
// alice: static tokens, JWT subjects and client ids are not one namespace.
func TestHTTP_principalSessionNotShared(t *testing.T) {
	iss := authtest.NewIssuer(t)
	cfg, static, sub, clientID := collidingAuth(t, iss)
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	url := serveHTTP(t, s, NewHTTPConfig().WithAuth(cfg))
	owner := connectHTTP(t, url, "2025-11-25", bearerClient(static), nil)
	_, err := owner.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///hello"})
	require.NoError(t, err)

	list := `{"jsonrpc":"2.0","id":5,"method":"resources/list"}`
	for name, token := range map[string]string{"jwt sub": sub, "jwt client_id": clientID} {
		hdr := map[string]string{"Mcp-Session-Id": owner.ID(), "MCP-Protocol-Version": "2025-11-25", "Authorization": "Bearer " + token}
		status, _, body := rawPost(t, url, hdr, list)
		require.Equal(t, http.StatusForbidden, status, "%s: %s", name, body)
	}
	hdr := map[string]string{"Mcp-Session-Id": owner.ID(), "MCP-Protocol-Version": "2025-11-25", "Authorization": "Bearer " + static}
	status, _, body := rawPost(t, url, hdr, list)
	require.Equal(t, http.StatusOK, status, "the owner still uses it: %s", body)
}

// TestHTTP_principalRateLimitNotShared: the static token of alice spends
// its burst; JWTs whose sub or client_id is alice have their own buckets.
func TestHTTP_principalRateLimitNotShared(t *testing.T) {
	iss := authtest.NewIssuer(t)
	cfg, static, sub, clientID := collidingAuth(t, iss)
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	const burst = 3
	// One token a day: no bucket refills while the test runs.
	url := serveHTTP(t, s, NewHTTPConfig().WithAuth(cfg).WithRateLimit(1.0/86400, burst))
	read := func(token string) int {
		hdr := modernHeaders("resources/read", "notes:///hello")
		hdr["Authorization"] = "Bearer " + token
		status, _, _ := rawPost(t, url, hdr, modernRead("notes:///hello"))
		return status
	}
	for i := range burst {
		require.Equal(t, http.StatusOK, read(static), "static read %d", i)
	}
	require.Equal(t, http.StatusTooManyRequests, read(static), "the static token's burst is spent")
	require.Equal(t, http.StatusOK, read(sub), "a JWT with sub alice is another client")
	require.Equal(t, http.StatusOK, read(clientID), "a JWT with client_id alice is another client")
}

// TestHTTP_principalSessionBoundNotShared: the per-client session bound
// counts principals, not subjects.
func TestHTTP_principalSessionBoundNotShared(t *testing.T) {
	iss := authtest.NewIssuer(t)
	cfg, static, sub, _ := collidingAuth(t, iss)
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	url := serveHTTP(t, s, NewHTTPConfig().WithAuth(cfg).WithMaxSessionsPerClient(1))
	connectHTTP(t, url, "2025-11-25", bearerClient(static), nil)
	hdr := map[string]string{"MCP-Protocol-Version": "2025-11-25", "Authorization": "Bearer " + static}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	status, _, body := rawPost(t, url, hdr, init)
	require.Equal(t, http.StatusTooManyRequests, status, "the static token holds its one session: %s", body)
	hdr["Authorization"] = "Bearer " + sub
	status, _, body = rawPost(t, url, hdr, init)
	require.Equal(t, http.StatusOK, status, "a JWT with sub alice is another client: %s", body)
}

// TestPrincipalKey: the key is unambiguous: kind, issuer and subject that
// differ give keys that differ, however the strings are cut.
func TestPrincipalKey(t *testing.T) {
	ps := []auth.Principal{
		{Kind: auth.KindStatic, Subject: "alice"},
		{Kind: auth.KindStatic, Subject: "oauth:1:a:sub:b"},
		{Kind: auth.KindSubject, Issuer: "a", Subject: "b"},
		{Kind: auth.KindClientID, Issuer: "a", Subject: "b"},
		{Kind: auth.KindSubject, Issuer: "a:sub:b", Subject: "c"},
		{Kind: auth.KindSubject, Issuer: "a", Subject: "b:sub:c"},
		{Kind: auth.KindSubject, Issuer: "https://x", Subject: "alice"},
		{Kind: auth.KindSubject, Issuer: "https://y", Subject: "alice"},
		{Kind: auth.KindClientID, Issuer: "https://x", Subject: "alice"},
	}
	seen := map[string]int{}
	for i, p := range ps {
		k := keyOf(&p)
		j, dup := seen[k]
		require.False(t, dup, "principals %d and %d share key %q", i, j, k)
		seen[k] = i
	}
	require.Equal(t, "oauth:"+strconv.Itoa(len("https://x"))+":https://x:sub:alice", keyOf(&ps[6]))
	require.Equal(t, "stdio", principalKey(t.Context()))
}

// TestPrincipalKey_inHandlers: the context a provider call gets carries
// the principal of the request, on a legacy session (whose handlers run
// in the context of the initialize that opened it, bound to the same
// principal) and on 2026-07-28 requests; an anonymous client is its
// address.
func TestPrincipalKey_inHandlers(t *testing.T) {
	iss := authtest.NewIssuer(t)
	cfg, static, sub, _ := collidingAuth(t, iss)
	seen := make(chan string, 16)
	p := notesProvider().WithIntercept(func(ctx context.Context, op, _ string) error {
		if op == abi.OpRead {
			seen <- principalKey(ctx)
		}
		return nil
	})
	s := newServer(t, NewConfig().WithProviders(p))
	url := serveHTTP(t, s, NewHTTPConfig().WithAuth(cfg))
	jwtKey := "oauth:" + strconv.Itoa(len(iss.URL())) + ":" + iss.URL() + ":sub:alice"
	for _, tc := range []struct{ version, token, want string }{
		{"2025-11-25", static, "static:alice"},
		{"2025-11-25", sub, jwtKey},
		{"2026-07-28", static, "static:alice"},
		{"2026-07-28", sub, jwtKey},
	} {
		cs := connectHTTP(t, url, tc.version, bearerClient(tc.token), nil)
		_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///hello"})
		require.NoError(t, err)
		require.Equal(t, tc.want, <-seen, tc.version)
	}
	anon := connectHTTP(t, serveHTTP(t, s, NewHTTPConfig()), "2025-11-25", nil, nil)
	_, err := anon.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///hello"})
	require.NoError(t, err)
	require.Equal(t, "address:127.0.0.1", <-seen)
	stdio := connectStdio(t, s, "2025-11-25")
	_, err = stdio.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///hello"})
	require.NoError(t, err)
	require.Equal(t, "stdio", <-seen)
}
