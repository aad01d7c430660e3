package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/cmd/mcp-wasm/defaultprovider"
	"github.com/mcp-wasm/mcp-wasm/internal/oci"
	"github.com/mcp-wasm/mcp-wasm/internal/oci/ocitest"
	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy/sigtest"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/internal/testlog"
)

// Providers through a registry: go-containerregistry's in-process registry
// on loopback, the real CLI (in-process for push, pull, lock, inspect and
// validate; the built binary with a go-sdk client for serve). .ci/registry.sh
// runs the same flow against Debian's docker-registry.

const (
	alice  = "alice@acme.example"
	issuer = "https://accounts.acme.example"
)

// e2eCache is the cache directory the serve tests share (compiled guests).
func e2eCache() string { return testguest.CompileCache() }

// ociCLI runs the CLI in-process with the shared cache directory.
func ociCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	full := append([]string{"mcp-wasm", args[0], "--cache-dir", e2eCache(), "--log-level", "warn"}, args[1:]...)
	code := run(context.Background(), full, bytes.NewReader(nil), &out, &out)
	return code, out.String()
}

var pushedRE = regexp.MustCompile(`(?m)^pushed (oci://\S+)$`)

// ociFixture is a registry, two different providers and a directory the
// files provider serves.
type ociFixture struct {
	reg          *ocitest.Registry
	dir          string
	files, cdocs string // module paths
	data         string // served by the files provider
}

func newOCIFixture(t *testing.T) *ociFixture {
	f := &ociFixture{reg: ocitest.New(t, false), dir: t.TempDir()}
	f.files = filepath.Join(f.dir, "files.wasm")
	require.NoError(t, os.WriteFile(f.files, defaultprovider.Wasm(), 0o644))
	f.cdocs = testguest.C(t, "cdocs", "guests/c/mcpw.c", "guests/cdocs/cdocs.c")
	f.data = filepath.Join(f.dir, "data")
	require.NoError(t, os.MkdirAll(f.data, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(f.data, "hello.txt"), []byte("hello from the registry\n"), 0o644))
	return f
}

// push publishes module as repoTag and returns the pinned reference.
func (f *ociFixture) push(t *testing.T, module, repoTag string) string {
	t.Helper()
	code, out := ociCLI(t, "push", "--insecure-registry", f.reg.Host, module, f.reg.Host+"/"+repoTag)
	require.Zero(t, code, out)
	m := pushedRE.FindStringSubmatch(out)
	require.NotNil(t, m, out)
	return m[1]
}

func uris(t *testing.T, cs *mcp.ClientSession) []string {
	var out []string
	for _, r := range listAll(t, cs) {
		out = append(out, r.URI)
	}
	return out
}

// TestE2E_OCIPushPullServe: push, pull back, serve by digest through a real
// MCP client; the tag moves and the digest keeps the old bytes; the registry
// goes away and the pinned module still loads.
func TestE2E_OCIPushPullServe(t *testing.T) {
	f := newOCIFixture(t)
	pinned := f.push(t, f.files, "acme/provider:1")
	wantDigest := oci.Digest(defaultprovider.Wasm())

	code, out := ociCLI(t, "pull", "--insecure-registry", f.reg.Host, "-o", filepath.Join(f.dir, "back.wasm"), strings.TrimPrefix(pinned, "oci://"))
	require.Zero(t, code, out)
	require.Contains(t, out, "sha256      "+wantDigest)
	require.Contains(t, out, "signatures  none")
	back, err := os.ReadFile(filepath.Join(f.dir, "back.wasm"))
	require.NoError(t, err)
	require.Equal(t, defaultprovider.Wasm(), back)

	serve := func(module string) []string {
		cs := connect(t, "2025-11-25", "--module", module, "--allow-dir", f.data, "--insecure-registry", f.reg.Host)
		defer cs.Close()
		return uris(t, cs)
	}
	require.Equal(t, []string{uriIn(t, f.data, "hello.txt")}, serve(pinned))

	// The tag moves to another provider: the tag serves it, the pin does not.
	f.push(t, f.cdocs, "acme/provider:1")
	tag := "oci://" + f.reg.Host + "/acme/provider:1"
	cs := connect(t, "2025-11-25", "--module", tag, "--insecure-registry", f.reg.Host)
	require.NotContains(t, uris(t, cs), uriIn(t, f.data, "hello.txt"))
	require.NoError(t, cs.Close())
	require.Equal(t, []string{uriIn(t, f.data, "hello.txt")}, serve(pinned))
	code, out = ociCLI(t, "call", "--allow-dir", f.data, "--insecure-registry", f.reg.Host, pinned, "list")
	require.Zero(t, code, out)
	require.Contains(t, out, uriIn(t, f.data, "hello.txt"), "call runs a registry reference as serve does")

	// Offline: the pinned module loads from the store.
	f.reg.Close()
	require.Equal(t, []string{uriIn(t, f.data, "hello.txt")}, serve(pinned))
	code, out = ociCLI(t, "inspect", "--allow-dir", f.data, pinned)
	require.Zero(t, code, out)
	require.Contains(t, out, "source      "+pinned)
	require.Contains(t, out, "(from the module store, without asking the registry)")

	// Plain HTTP is never implied, loopback or not.
	code, out = ociCLI(t, "pull", "oci://"+f.reg.Host+"/acme/provider:1")
	require.Equal(t, 1, code)
	require.Contains(t, out, "give --insecure-registry "+f.reg.Host)
}

// TestE2E_OCILockAndPolicy: lock pins a config; a keyless signature by the
// wanted identity loads; an unsigned or wrongly signed module is refused at
// load and at reload, naming the signer found and the signer wanted, and the
// running set stays.
func TestE2E_OCILockAndPolicy(t *testing.T) {
	f := newOCIFixture(t)
	sig := sigtest.NewKeyless(t, f.dir)
	client := oci.NewClient(oci.Options{Insecure: []string{f.reg.Host}})
	attach := func(pinned, identity string) {
		r, err := oci.ParseRef(pinned)
		require.NoError(t, err)
		_, err = client.AttachBundle(t.Context(), r, sig.SignDigest(t, identity, issuer, r.Digest, sigtest.CosignSignPredicate))
		require.NoError(t, err)
	}
	signed := f.push(t, f.files, "acme/provider:1")
	attach(signed, alice)

	tag := "oci://" + f.reg.Host + "/acme/provider:1"
	config := func(module string) string {
		b, err := json.Marshal(map[string]any{
			"server":    map[string]any{"insecureRegistries": []string{f.reg.Host}, "cacheDir": e2eCache()},
			"policy":    map[string]any{"signers": []any{map[string]string{"identity": alice, "issuer": issuer}}, "trustedRoot": "trusted_root.json"},
			"providers": []any{map[string]any{"module": module, "grants": map[string]any{"dirs": []any{map[string]string{"host": "data"}}}}},
		})
		require.NoError(t, err)
		return string(b)
	}
	path := filepath.Join(f.dir, "mcp.json")
	require.NoError(t, os.WriteFile(path, []byte(config(tag)), 0o644))
	code, out := ociCLI(t, "lock", "--config", path)
	require.Zero(t, code, out)
	locked, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(locked), `"module":"`+signed+`", "sha256": "`+oci.DigestHex(oci.Digest(defaultprovider.Wasm()))+`"`)

	// The tag moves to an unsigned module: the locked config keeps the
	// signed one; the tag is refused.
	unsigned := f.push(t, f.cdocs, "acme/provider:1")
	code, out = ociCLI(t, "validate", "--config", path)
	require.Zero(t, code, out)
	tagged := filepath.Join(f.dir, "tag.json")
	require.NoError(t, os.WriteFile(tagged, []byte(config(tag)), 0o644))
	code, out = ociCLI(t, "validate", "--config", tagged)
	require.Equal(t, 1, code)
	require.Contains(t, out, "carries no Sigstore bundle, and the policy wants a signature by "+alice+" (issuer "+issuer+")")

	// Signed, by someone else.
	attach(unsigned, "mallory@evil.example")
	code, out = ociCLI(t, "validate", "--config", tagged)
	require.Equal(t, 1, code)
	require.Contains(t, out, "signed by mallory@evil.example (issuer "+issuer+"), who is not a signer the policy accepts")
	require.Contains(t, out, "wanted a signature by "+alice)

	// inspect verifies with the flags, or shows the claims unverified.
	code, out = ociCLI(t, "inspect", "--insecure-registry", f.reg.Host, "--allow-dir", f.data,
		"--signature-identity", alice, "--signature-issuer", issuer, "--trusted-root", sig.RootFile, signed)
	require.Zero(t, code, out)
	require.Contains(t, out, "signer      "+alice+" (issuer "+issuer+") (verified")
	code, out = ociCLI(t, "inspect", "--insecure-registry", f.reg.Host, unsigned)
	require.Zero(t, code, out)
	require.Contains(t, out, "signatures  mallory@evil.example (issuer "+issuer+")")
	require.Contains(t, out, "signer      not verified")

	// serve the locked config; a reload to the wrongly signed tag is refused
	// and the signed provider keeps serving.
	var logs testlog.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), "serve", "--config", path, "--log-level", "info")
	cmd.Stderr = &logs
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-oci", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	defer cs.Close()
	require.Equal(t, []string{uriIn(t, f.data, "hello.txt")}, uris(t, cs))
	require.NoError(t, os.WriteFile(path, []byte(config(tag)), 0o644))
	require.NoError(t, cmd.Process.Signal(syscall.SIGHUP))
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "reload refused") }, testkit.Wait, 50*time.Millisecond)
	require.Contains(t, logs.String(), "signed by mallory@evil.example")
	require.Equal(t, []string{uriIn(t, f.data, "hello.txt")}, uris(t, cs))
}

// TestE2E_LocalModuleSignature: a module file's .sigstore.json bundle, and
// the policy flags of call.
func TestE2E_LocalModuleSignature(t *testing.T) {
	dir := t.TempDir()
	sig := sigtest.NewKeyless(t, dir)
	module := filepath.Join(dir, "files.wasm")
	require.NoError(t, os.WriteFile(module, defaultprovider.Wasm(), 0o644))
	policy := []string{"--signature-identity", alice, "--signature-issuer", issuer, "--trusted-root", sig.RootFile}
	callArgs := append(append([]string{"call", "--allow-dir", dir}, policy...), module, "describe")

	code, out := ociCLI(t, callArgs...)
	require.Equal(t, 1, code)
	require.Contains(t, out, "carries no Sigstore bundle")

	require.NoError(t, os.WriteFile(module+".sigstore.json", sig.SignBlob(t, "bob@acme.example", issuer, defaultprovider.Wasm()), 0o644))
	code, out = ociCLI(t, callArgs...)
	require.Equal(t, 1, code)
	require.Contains(t, out, "signed by bob@acme.example (issuer "+issuer+"), who is not a signer the policy accepts")

	require.NoError(t, os.WriteFile(module+".sigstore.json", []byte(`{"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json"`), 0o644))
	code, out = ociCLI(t, callArgs...)
	require.Equal(t, 1, code)
	require.Contains(t, out, "malformed bundle")

	require.NoError(t, os.WriteFile(module+".sigstore.json", sig.SignBlob(t, alice, issuer, defaultprovider.Wasm()), 0o644))
	code, out = ociCLI(t, callArgs...)
	require.Zero(t, code, out)
	require.Contains(t, out, "provider")

	// inspect shows a local module's digest and its verified signer, as it
	// does for a registry's.
	code, out = ociCLI(t, append(append([]string{"inspect", "--allow-dir", dir}, policy...), module)...)
	require.Zero(t, code, out)
	require.Contains(t, out, "sha256      "+oci.Digest(defaultprovider.Wasm()))
	require.Contains(t, out, "signer      "+alice+" (issuer "+issuer+") (verified")
}
