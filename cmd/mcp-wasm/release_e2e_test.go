package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// TestReleaseE2E serves what scripts/release-providers.sh published: the
// git and sqlite providers, pushed to the loopback registry .ci/registry.sh
// starts and signed there by cosign with a key. .ci/registry.sh sets
// MCPW_RELEASED (the script's OUT file: NAME oci://PINNED per line),
// MCPW_RELEASE_KEY (cosign.pub) and MCPW_REGISTRY. Each provider is served
// by its pinned reference with the signature required, through the go-sdk
// client, on a repository made by git and a database made by sqlite3; a
// key that did not sign refuses both.
func TestReleaseE2E(t *testing.T) {
	released, key, reg := os.Getenv("MCPW_RELEASED"), os.Getenv("MCPW_RELEASE_KEY"), os.Getenv("MCPW_REGISTRY")
	if released == "" {
		t.Skip("needs what .ci/registry.sh publishes with scripts/release-providers.sh (MCPW_RELEASED)")
	}
	refs := map[string]string{}
	f, err := os.Open(released)
	require.NoError(t, err)
	for sc := bufio.NewScanner(f); sc.Scan(); {
		name, ref, ok := strings.Cut(sc.Text(), " ")
		require.True(t, ok, "line %q", sc.Text())
		refs[name] = ref
	}
	require.NoError(t, f.Close())
	require.Contains(t, refs, "git")
	require.Contains(t, refs, "sqlite")

	dir := t.TempDir()
	repo := filepath.Join(dir, "repos", "demo")
	require.NoError(t, os.MkdirAll(repo, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "hello.txt"), []byte("released\n"), 0o644))
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "hello.txt"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "one"}} {
		out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
	data := filepath.Join(dir, "data")
	require.NoError(t, os.MkdirAll(data, 0o755))
	out, err := exec.Command("sqlite3", "-batch", "-bail", filepath.Join(data, "crm.db"),
		"CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL);").CombinedOutput()
	require.NoError(t, err, "sqlite3: %s", out)

	home := t.TempDir()
	cache := filepath.Join(t.TempDir(), "cache")
	connect := func(keyFile, module, grant string) (*mcp.ClientSession, error) {
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
		t.Cleanup(cancel)
		cmd := registryServe(ctx, t, home, cache, "--insecure-registry", reg, "--require-digest", "--signature-key", keyFile,
			"--module", module, "--allow-dir", grant)
		return mcp.NewClient(&mcp.Implementation{Name: "release-e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	}
	read := func(cs *mcp.ClientSession, uri string) string {
		t.Helper()
		res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
		require.NoError(t, err, uri)
		require.Len(t, res.Contents, 1)
		return res.Contents[0].Text
	}

	cs, err := connect(key, refs["git"], repo)
	require.NoError(t, err)
	require.Contains(t, uris(t, cs), "git://demo/blob/main/hello.txt")
	require.Equal(t, "released\n", read(cs, "git://demo/blob/main/hello.txt"))
	require.NoError(t, cs.Close())

	cs, err = connect(key, refs["sqlite"], data)
	require.NoError(t, err)
	require.Equal(t, "CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL)", read(cs, "sqlite://crm.db/table/customer"))
	require.NoError(t, cs.Close())

	// A key that signed neither: the server refuses to start, and says so.
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.MarshalPKIXPublicKey(&other.PublicKey)
	require.NoError(t, err)
	otherKey := filepath.Join(dir, "other.pub")
	require.NoError(t, os.WriteFile(otherKey, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644))
	for _, name := range []string{"git", "sqlite"} {
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
		cmd := registryServe(ctx, t, home, cache, "--insecure-registry", reg, "--signature-key", otherKey, "--module", refs[name], "--allow-dir", dir)
		cmd.Stderr = nil // CombinedOutput collects it
		cmd.Stdin = strings.NewReader("")
		b, err := cmd.CombinedOutput()
		cancel()
		require.Error(t, err, "%s served under a key that did not sign it: %s", name, b)
		require.Contains(t, string(b), "signature", name)
	}
}
