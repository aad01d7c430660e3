package main

import (
	"context"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/cmd/mcp-wasm/defaultprovider"
	"github.com/mcp-wasm/mcp-wasm/internal/oci"
	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy/sigtest"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
)

// TestRegistryE2E runs against Debian's docker-registry (the CNCF
// distribution registry), started on loopback by .ci/registry.sh, which
// sets MCPW_REGISTRY (anonymous), MCPW_REGISTRY_STORAGE (its storage
// directory) and MCPW_REGISTRY_AUTH (a second one, htpasswd user e2e,
// password e2e-password). Every mcp-wasm command is the built binary.
func TestRegistryE2E(t *testing.T) {
	reg, storage, locked := os.Getenv("MCPW_REGISTRY"), os.Getenv("MCPW_REGISTRY_STORAGE"), os.Getenv("MCPW_REGISTRY_AUTH")
	if reg == "" {
		t.Skip("needs the registries .ci/registry.sh starts (MCPW_REGISTRY)")
	}
	dir := t.TempDir()
	home := t.TempDir() // an empty docker config: anonymous
	cache := filepath.Join(t.TempDir(), "cache")
	run := func(env []string, args ...string) (int, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, binary(t), append([]string{args[0], "--cache-dir", cache, "--log-level", "warn"}, args[1:]...)...)
		cmd.Env = append(os.Environ(), "HOME="+home, "DOCKER_CONFIG="+filepath.Join(home, ".docker"))
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return code, string(out)
	}
	mcpw := func(args ...string) (int, string) { t.Helper(); return run(nil, args...) }

	files := filepath.Join(dir, "files.wasm")
	require.NoError(t, os.WriteFile(files, defaultprovider.Wasm(), 0o644))
	cdocs := testguest.C(t, "cdocs", "guests/c/mcpw.c", "guests/cdocs/cdocs.c")
	data := filepath.Join(dir, "data")
	require.NoError(t, os.MkdirAll(data, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(data, "hello.txt"), []byte("hi\n"), 0o644))
	sig := sigtest.NewKeyless(t, dir)
	insecure := []string{"--insecure-registry", reg}
	push := func(module, repoTag string) string {
		t.Helper()
		code, out := mcpw(append(append([]string{"push"}, insecure...), module, reg+"/"+repoTag)...)
		require.Zero(t, code, out)
		m := pushedRE.FindStringSubmatch(out)
		require.NotNil(t, m, out)
		return m[1]
	}

	// Publish, sign the way cosign does (a bundle referrer, here through the
	// referrers tag schema: distribution 2.8 has no referrers API), pull back.
	pinned := push(files, "e2e/files:1")
	ref, err := oci.ParseRef(pinned)
	require.NoError(t, err)
	_, err = oci.NewClient(oci.Options{Insecure: []string{reg}}).AttachBundle(t.Context(), ref,
		sig.SignDigest(t, alice, issuer, ref.Digest, sigtest.CosignSignPredicate))
	require.NoError(t, err)
	policy := []string{"--signature-identity", alice, "--signature-issuer", issuer, "--trusted-root", sig.RootFile}
	code, out := mcpw(append(append(append([]string{"pull"}, insecure...), policy...), "-o", filepath.Join(dir, "back.wasm"), reg+"/e2e/files:1")...)
	require.Zero(t, code, out)
	require.Contains(t, out, "source      "+pinned)
	require.Contains(t, out, "signer      "+alice)
	back, err := os.ReadFile(filepath.Join(dir, "back.wasm"))
	require.NoError(t, err)
	require.Equal(t, defaultprovider.Wasm(), back)

	// Serve by digest, signature required, through the go-sdk client.
	serve := func(args ...string) []string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		cmd := registryServe(ctx, t, home, cache, args...)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "registry-e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		require.NoError(t, err)
		defer cs.Close()
		return uris(t, cs)
	}
	require.Equal(t, []string{uriIn(t, data, "hello.txt")}, serve(append(append(append([]string{"--require-digest"}, insecure...), policy...), "--module", pinned, "--allow-dir", data)...))

	// Move the tag: a locked config keeps the old bytes.
	config := filepath.Join(dir, "mcp.json")
	require.NoError(t, os.WriteFile(config, []byte(`{
  "server": {"insecureRegistries": ["`+reg+`"]},
  "providers": [
    {
      "module": "oci://`+reg+`/e2e/files:1",
      "grants": {"dirs": [{"host": "data"}]}
    }
  ]
}
`), 0o644))
	code, out = mcpw("lock", "--config", config)
	require.Zero(t, code, out)
	push(cdocs, "e2e/files:1")
	require.Equal(t, []string{uriIn(t, data, "hello.txt")}, serve("--config", config))
	require.NotContains(t, serve(append(insecure, "--module", "oci://"+reg+"/e2e/files:1")...), uriIn(t, data, "hello.txt"))

	// Tamper with the module's blob in the registry's storage: a fresh
	// store refuses it and keeps nothing.
	layer := oci.DigestHex(oci.Digest(defaultprovider.Wasm()))
	blob := filepath.Join(storage, "docker", "registry", "v2", "blobs", "sha256", layer[:2], layer, "data")
	b, err := os.ReadFile(blob)
	require.NoError(t, err)
	b[len(b)/2] ^= 0xff
	require.NoError(t, os.WriteFile(blob, b, 0o644))
	cache = filepath.Join(t.TempDir(), "fresh")
	code, out = mcpw(append(append([]string{"pull"}, insecure...), strings.TrimPrefix(pinned, "oci://"))...)
	require.Equal(t, 1, code)
	require.Contains(t, out, "digest mismatch")
	require.Contains(t, out, "not sha256:"+layer)
	_, err = os.Stat(filepath.Join(cache, "modules", "blobs", "sha256", layer))
	require.True(t, os.IsNotExist(err), "nothing of the tampered blob is stored")
	leftovers, _ := filepath.Glob(filepath.Join(cache, "modules", "blobs", "sha256", ".tmp-*"))
	require.Empty(t, leftovers)

	// Bad input, each a clear error.
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"layer over the cap", append(append([]string{"pull", "--max-module-size", "1KiB"}, insecure...), reg+"/e2e/files:1"), "the module size limit is 1024"},
		{"unreachable", []string{"pull", "--insecure-registry", "127.0.0.1:1", "127.0.0.1:1/e2e/files:1"}, "check the host and port"},
		{"not found", append(append([]string{"pull"}, insecure...), reg+"/e2e/none:1"), "not found in the registry"},
		{"TLS by default", []string{"pull", reg + "/e2e/files:1"}, "give --insecure-registry " + reg},
		{"401", []string{"pull", "--insecure-registry", locked, locked + "/e2e/files:1"}, "answered 401"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := mcpw(tc.args...)
			require.Equal(t, 1, code, out)
			require.Contains(t, out, tc.want)
		})
	}

	// A container image is not a module.
	img, err := random.Image(512, 1)
	require.NoError(t, err)
	imgRef, err := name.ParseReference(reg+"/e2e/image:1", name.Insecure)
	require.NoError(t, err)
	require.NoError(t, remote.Write(imgRef, img))
	code, out = mcpw(append(append([]string{"pull"}, insecure...), reg+"/e2e/image:1")...)
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "the tar holds no .wasm file")
	require.Contains(t, out, "oras push REG/REPO:TAG --artifact-type application/vnd.wasm.config.v0+json module.wasm:application/wasm")

	// What oras publishes, by default and with the command the refusals
	// name, pulls back byte for byte (MCPW_ORAS: the oras binary).
	// (cdocs: the files provider's blob was tampered with above, and a
	// registry that has a blob keeps it.)
	if oras := os.Getenv("MCPW_ORAS"); oras != "" {
		module, err := os.ReadFile(cdocs)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "module.wasm"), module, 0o644))
		for i, args := range [][]string{
			{"push", "--plain-http", reg + "/e2e/oras:1", "module.wasm"},
			{"push", "--plain-http", reg + "/e2e/oras:2", "--artifact-type", "application/vnd.wasm.config.v0+json", "module.wasm:application/wasm"},
		} {
			cmd := exec.CommandContext(t.Context(), oras, args...)
			cmd.Dir = dir
			b, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", b)
			back := filepath.Join(dir, "oras-back.wasm")
			code, out := mcpw(append(append([]string{"pull"}, insecure...), "-o", back, reg+"/e2e/oras:"+string(rune('1'+i)))...)
			require.Zero(t, code, out)
			got, err := os.ReadFile(back)
			require.NoError(t, err)
			require.Equal(t, module, got, "oras %v", args)
		}
	}

	// cosign 2 itself (MCPW_COSIGN), key-signed with its defaults: the .sig
	// tag of a pushed module, and sign-blob's own --bundle JSON for a file.
	if cosign := os.Getenv("MCPW_COSIGN"); cosign != "" {
		cosignRun := func(args ...string) {
			t.Helper()
			cmd := exec.CommandContext(t.Context(), cosign, args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "COSIGN_PASSWORD=", "HOME="+home, "DOCKER_CONFIG="+filepath.Join(home, ".docker"))
			b, err := cmd.CombinedOutput()
			require.NoError(t, err, "cosign %v: %s", args, b)
		}
		cosignRun("generate-key-pair")
		signed := push(cdocs, "e2e/cosign:1")
		cosignRun("sign", "--key", "cosign.key", "--tlog-upload=false", "--allow-insecure-registry", "--yes", strings.TrimPrefix(signed, "oci://"))
		code, out := mcpw(append(append([]string{"pull"}, insecure...), "--signature-key", filepath.Join(dir, "cosign.pub"), strings.TrimPrefix(signed, "oci://"))...)
		require.Zero(t, code, out)
		require.Contains(t, out, "cosign.pub")

		blob := filepath.Join(dir, "signed-blob.wasm")
		module, err := os.ReadFile(cdocs)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(blob, module, 0o644))
		cosignRun("sign-blob", "--key", "cosign.key", "--tlog-upload=false", "--yes", "--bundle", blob+".sigstore.json", blob)
		b, err := os.ReadFile(blob + ".sigstore.json")
		require.NoError(t, err)
		require.Contains(t, string(b), "base64Signature", "cosign 2's own bundle JSON")
		code, out = mcpw("inspect", "--signature-key", filepath.Join(dir, "cosign.pub"), blob)
		require.Zero(t, code, out)
		require.Contains(t, out, "cosign.pub")
	}

	// Docker's config.json credentials open the password-protected registry.
	dockerDir := filepath.Join(home, ".docker")
	require.NoError(t, os.MkdirAll(dockerDir, 0o700))
	auth := base64.StdEncoding.EncodeToString([]byte("e2e:e2e-password"))
	require.NoError(t, os.WriteFile(filepath.Join(dockerDir, "config.json"), []byte(`{"auths":{"`+locked+`":{"auth":"`+auth+`"}}}`), 0o600))
	code, out = mcpw("push", "--insecure-registry", locked, files, locked+"/e2e/files:1")
	require.Zero(t, code, out)
	require.Regexp(t, regexp.MustCompile(`pushed oci://`+regexp.QuoteMeta(locked)+`/e2e/files:1@sha256:[0-9a-f]{64}`), out)
	code, out = mcpw("pull", "--insecure-registry", locked, locked+"/e2e/files:1")
	require.Zero(t, code, out)
}

// registryServe is `mcp-wasm serve` as a registry's user runs it: with
// its own HOME (and so its own Docker credentials), a module cache, quiet
// logs, and its standard error in the test's log.
func registryServe(ctx context.Context, t *testing.T, home, cache string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, binary(t), append([]string{"serve", "--cache-dir", cache, "--log-level", "warn"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+home, "DOCKER_CONFIG="+filepath.Join(home, ".docker"))
	cmd.Stderr = testWriter{t}
	return cmd
}
