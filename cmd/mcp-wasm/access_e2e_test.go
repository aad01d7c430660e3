package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/cmd/mcp-wasm/defaultprovider"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/server/auth/authtest"
)

// teamConfig is a config file serving the files provider over data/ (as
// file:///data/...) with access rules: alice and bob (static tokens) their
// own folders, the acme tenant (an OAuth claim) the shared one, dave (an
// OAuth subject) alice's notes but not her keys. bobRule replaces bob's
// include patterns.
func teamConfig(bobRule string) string {
	return fmt.Sprintf(`{"providers": [{"module": "files.wasm", "grants": {"dirs": [{"host": "data", "guest": "/data"}]}, "limits": {%s},
   "cache": {"ttl": "1m", "scope": "private"}}],
 "access": [
  {"name": "alice", "who": ["token:alice"], "include": ["file:///data/alice/**", "file:///data/shared/**"]},
  {"name": "bob", "who": ["token:bob"], "providers": ["files"], "include": [%s]},
  {"name": "acme", "who": ["claim:tenant=acme"], "include": ["file:///data/shared/**"]},
  {"name": "dave", "who": ["sub:dave"], "include": ["file:///data/alice/**"], "exclude": ["file:///data/alice/*.key"]}
 ]}`, testkit.LimitsJSON(), bobRule)
}

// TestE2E_access: the binary with a config file's access rules, a token
// file with two named tokens and an OAuth issuer with two subjects, over
// Streamable HTTP on both eras: each principal lists and reads exactly its
// files from the real files guest; a rule change on SIGHUP applies to an
// open session; the audit names principal and rule, never the token; the
// denials are counted by provider and method.
func TestE2E_access(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "files.wasm"), defaultprovider.Wasm(), 0o644))
	files := map[string]string{"alice/notes.md": "a", "alice/id.key": "k", "bob/todo.md": "b", "shared/plan.md": "s"}
	for rel, text := range files {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "data", filepath.Dir(rel)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "data", rel), []byte(text), 0o644))
	}
	cfgPath := filepath.Join(dir, "mcp.json")
	testkit.WriteAtomic(t, cfgPath, teamConfig(`"file:///data/bob/**"`))
	tokens := filepath.Join(dir, "tokens")
	require.NoError(t, os.WriteFile(tokens, []byte("alice alice-s3cret\nbob bob-s3cret\n"), 0o600))
	iss := authtest.NewIssuer(t)
	srv := startHTTP(t, nil, "--config", cfgPath, "--auth-token-file", tokens, "--oauth-issuer", iss.URL(),
		"--oauth-resource", authtest.Resource, "--log-level", "info")

	jwtClient := func(claims map[string]any) *http.Client {
		return &http.Client{Transport: tokenTransport{iss.Sign(t, jwt.SigningMethodRS256, "rsa1", nil, iss.Claims(claims))}}
	}
	clients := map[string]*http.Client{
		"alice": {Transport: tokenTransport{"alice-s3cret"}},
		"bob":   {Transport: tokenTransport{"bob-s3cret"}},
		"carol": jwtClient(map[string]any{"sub": "carol", "tenant": "acme"}),
		"dave":  jwtClient(map[string]any{"sub": "dave"}),
	}
	sees := map[string][]string{
		"alice": {"alice/id.key", "alice/notes.md", "shared/plan.md"},
		"bob":   {"bob/todo.md"},
		"carol": {"shared/plan.md"},
		"dave":  {"alice/notes.md"},
	}
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		for who, hc := range clients {
			t.Run(version+"/"+who, func(t *testing.T) {
				cs := connectURL(t, srv.url, version, hc)
				require.ElementsMatch(t, dataURIs(sees[who]), listURIs(t, cs), "resources/list")
				for rel, text := range files {
					res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "file:///data/" + rel})
					if !containsStr(sees[who], rel) {
						require.Error(t, err, "%s reads %s", who, rel)
						continue
					}
					require.NoError(t, err)
					require.Equal(t, text, res.Contents[0].Text)
					if version == "2026-07-28" {
						require.Equal(t, "private", res.CacheScope, "what a principal reads is private to it")
					}
				}
			})
		}
	}

	// The host read cache (on by default) may keep what alice read;
	// authorization runs before the provider and so before any hit: bob,
	// whom no rule lets see it, gets not found.
	alice := connectURL(t, srv.url, "2026-07-28", clients["alice"])
	for range 2 {
		_, err := alice.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "file:///data/alice/notes.md"})
		require.NoError(t, err)
	}
	_, err := connectURL(t, srv.url, "2026-07-28", clients["bob"]).ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "file:///data/alice/notes.md"})
	require.Error(t, err)

	// A rule change on reload applies to a session opened before it.
	bob := connectURL(t, srv.url, "2025-11-25", clients["bob"])
	_, err = bob.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "file:///data/shared/plan.md"})
	require.Error(t, err)
	testkit.WriteAtomic(t, cfgPath, teamConfig(`"file:///data/shared/**"`))
	require.NoError(t, srv.cmd.Process.Signal(syscall.SIGHUP))
	require.Eventually(t, func() bool {
		_, err := bob.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "file:///data/shared/plan.md"})
		return err == nil
	}, testkit.Wait, 50*time.Millisecond, "the open session reads under the reloaded rules")
	_, err = bob.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "file:///data/bob/todo.md"})
	require.Error(t, err, "and loses what the new rule no longer grants")
	require.ElementsMatch(t, dataURIs([]string{"shared/plan.md"}), listURIs(t, bob))

	// A reload naming a provider that is not served is refused; the rules
	// in force stay.
	testkit.WriteAtomic(t, cfgPath, strings.Replace(teamConfig(`"file:///data/shared/**"`), `"providers": ["files"]`, `"providers": ["fiels"]`, 1))
	require.NoError(t, srv.cmd.Process.Signal(syscall.SIGHUP))
	require.Eventually(t, func() bool { return strings.Contains(srv.logs(), `access rule \"bob\" names provider \"fiels\"`) },
		testkit.Wait, 50*time.Millisecond)
	_, err = bob.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "file:///data/shared/plan.md"})
	require.NoError(t, err)

	require.NoError(t, srv.stop(t))
	logs := srv.logs()
	require.Contains(t, logs, "who=static:alice method=resources/read uri=file:///data/alice/notes.md provider=files decision=allow rule=alice")
	require.Contains(t, logs, "who=static:alice method=resources/read uri=file:///data/bob/todo.md provider=files decision=deny reason=not_found rule=\"(default deny)\"")
	require.Contains(t, logs, ":sub:dave method=resources/read uri=file:///data/alice/notes.md provider=files decision=allow rule=dave")
	require.NotContains(t, logs, "s3cret", "a token is never logged")
}

func dataURIs(rels []string) []string {
	out := make([]string, len(rels))
	for i, r := range rels {
		out[i] = "file:///data/" + r
	}
	return out
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func listURIs(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var out []string
	for r, err := range cs.Resources(t.Context(), nil) {
		require.NoError(t, err)
		out = append(out, r.URI)
	}
	return out
}
