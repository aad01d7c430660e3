package sigpolicy

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy/sigtest"
)

// This package links no engine: every check here runs the real verifier
// program, as mcp-wasm does.

var (
	verifierOnce sync.Once
	verifierBin  string
	verifierErr  error
)

// useVerifier builds cmd/mcp-wasm-verify once and points VerifierEnv at it.
func useVerifier(t *testing.T) {
	t.Helper()
	verifierOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcp-wasm-verify")
		if err != nil {
			verifierErr = err
			return
		}
		verifierBin = filepath.Join(dir, VerifierName)
		if out, err := exec.Command("go", "build", "-o", verifierBin, "../../cmd/mcp-wasm-verify").CombinedOutput(); err != nil {
			verifierErr = err
			t.Log(string(out))
		}
	})
	require.NoError(t, verifierErr)
	t.Setenv(VerifierEnv, verifierBin)
}

// TestVerifierProgram: keys, certificates and trusted roots are checked
// by the verifier program, across the process boundary, with the verdicts
// and messages of in-process verification.
func TestVerifierProgram(t *testing.T) {
	useVerifier(t)
	dir := t.TempDir()
	key := sigtest.NewKey(t, dir, "cosign.pub")
	other := sigtest.NewKey(t, dir, "other.pub")
	sig := sigtest.NewKeyless(t, dir)
	module := []byte("\x00asm\x01\x00\x00\x00 pretend module")
	subject := Subject{Digest: sigtest.Digest(module), What: "module"}

	byKey, err := Compile(Spec{Signers: []Signer{{Key: "cosign.pub"}}}, dir)
	require.NoError(t, err)
	v, err := byKey.Verify(subject, [][]byte{other.SignBlob(t, module), []byte("nope"), key.SignBlob(t, module)})
	require.NoError(t, err)
	require.Equal(t, 2, v.Bundle)
	require.True(t, v.Signer.Verified)
	require.Equal(t, filepath.Join(dir, "cosign.pub"), v.Signer.KeyFile)

	_, err = byKey.Verify(subject, [][]byte{other.SignBlob(t, module)})
	require.ErrorIs(t, err, ErrUntrusted)
	require.ErrorContains(t, err, "none of the policy's keys")
	_, err = byKey.Verify(Subject{Digest: sigtest.Digest([]byte("other bytes")), What: "module"}, [][]byte{key.SignBlob(t, module)})
	require.ErrorIs(t, err, ErrUntrusted, "a signature of other bytes")

	byAlice, err := Compile(Spec{Signers: []Signer{{Identity: "alice@acme.example", Issuer: "https://accounts.acme.example"}}, TrustedRoot: sig.RootFile}, "")
	require.NoError(t, err)
	v, err = byAlice.Verify(subject, [][]byte{sig.SignBlob(t, "alice@acme.example", "https://accounts.acme.example", module)})
	require.NoError(t, err)
	require.Equal(t, "alice@acme.example (issuer https://accounts.acme.example)", v.Signer.String())
	_, err = byAlice.Verify(subject, [][]byte{sig.SignBlob(t, "mallory@evil.example", "https://accounts.acme.example", module)})
	require.ErrorIs(t, err, ErrUntrusted)

	require.Equal(t, []string{"alice@acme.example (issuer https://accounts.acme.example)"},
		Describe([][]byte{sig.SignBlob(t, "alice@acme.example", "https://accounts.acme.example", module)}))

	require.NoError(t, os.WriteFile(filepath.Join(dir, "garbage.json"), []byte("{"), 0o644))
	_, err = Compile(Spec{TrustedRoot: "garbage.json"}, dir)
	require.ErrorContains(t, err, "trusted root "+filepath.Join(dir, "garbage.json"), "the verifier loads the trusted root at compile")
}

// TestVerifierProgram_refusesWhatItCannotTrust: without a verifier, or
// with one that misbehaves (too much output, a protocol it does not
// speak, fewer or more verdicts than bundles, a crash), nothing verifies:
// the module is refused with an error that says why, never accepted.
func TestVerifierProgram_refusesWhatItCannotTrust(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-ins are shell scripts")
	}
	dir := t.TempDir()
	key := sigtest.NewKey(t, dir, "cosign.pub")
	module := []byte("module")
	subject := Subject{Digest: sigtest.Digest(module), What: "module"}
	useVerifier(t)
	p, err := Compile(Spec{Signers: []Signer{{Key: key.PubFile}}}, "")
	require.NoError(t, err)
	bundles := [][]byte{key.SignBlob(t, module)}
	_, err = p.Verify(subject, bundles)
	require.NoError(t, err, "with the real verifier")

	script := func(body string) string {
		path := filepath.Join(t.TempDir(), VerifierName)
		require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\ncat >/dev/null\n"+body+"\n"), 0o755))
		return path
	}
	for name, tc := range map[string]struct{ path, err string }{
		"missing":       {filepath.Join(dir, "no", VerifierName), "run "},
		"relative":      {VerifierName, "not an absolute path"},
		"crash":         {script("echo boom >&2; exit 3"), "boom"},
		"floods":        {script("head -c 3000000 /dev/zero"), "answered more than"},
		"garbage":       {script("echo '{\"protocol\":1,\"verdict\":\"yes\"}'"), "unknown field"},
		"old protocol":  {script("echo '{\"protocol\":0,\"results\":[{\"signer\":{\"verified\":true}}]}'"), "speaks protocol 0"},
		"no verdict":    {script("echo '{\"protocol\":1}'"), "answered 0 results for 1 bundles"},
		"extra verdict": {script("echo '{\"protocol\":1,\"results\":[{\"err\":\"x\"},{\"signer\":{\"verified\":true}}]}'"), "answered 2 results for 1 bundles"},
	} {
		t.Setenv(VerifierEnv, tc.path)
		v, err := p.Verify(subject, bundles)
		require.Nil(t, v, name)
		require.ErrorContains(t, err, tc.err, name)
	}
}
