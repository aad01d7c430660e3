package offline_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy"
	_ "github.com/mcp-wasm/mcp-wasm/internal/sigpolicy/offline"
	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy/sigtest"
)

const (
	alice  = "alice@acme.example"
	issuer = "https://accounts.acme.example"
)

var module = []byte("\x00asm\x01\x00\x00\x00 pretend module")

func subject(b []byte) sigpolicy.Subject {
	d := sigtest.Digest(b)
	return sigpolicy.Subject{Digest: d, What: "module " + d}
}

func compile(t *testing.T, spec sigpolicy.Spec) *sigpolicy.Policy {
	t.Helper()
	p, err := sigpolicy.Compile(spec, "")
	require.NoError(t, err)
	return p
}

func TestVerify(t *testing.T) {
	dir := t.TempDir()
	sig := sigtest.NewKeyless(t, dir)
	other := sigtest.NewKeyless(t, t.TempDir()) // another Sigstore: its signatures are not trusted
	key := sigtest.NewKey(t, dir, "cosign.pub")
	otherKey := sigtest.NewKey(t, dir, "other.pub")
	d := sigtest.Digest(module)
	aliceRule := sigpolicy.Signer{Identity: alice, Issuer: issuer}
	byAlice := sigpolicy.Spec{Signers: []sigpolicy.Signer{aliceRule}, TrustedRoot: sig.RootFile}
	byKey := sigpolicy.Spec{Signers: []sigpolicy.Signer{{Key: key.PubFile}}}

	for _, tc := range []struct {
		name    string
		spec    sigpolicy.Spec
		bundles [][]byte
		signer  string // want success, signed by this
		err     []string
	}{
		{name: "keyless cosign sign", spec: byAlice,
			bundles: [][]byte{sig.SignDigest(t, alice, issuer, d, sigpolicy.CosignSignPredicate)}, signer: alice + " (issuer " + issuer + ")"},
		{name: "keyless sign-blob", spec: byAlice,
			bundles: [][]byte{sig.SignBlob(t, alice, issuer, module)}, signer: alice},
		{name: "identity regexp", spec: sigpolicy.Spec{Signers: []sigpolicy.Signer{{IdentityRegexp: `[a-z]+@acme\.example`, IssuerRegexp: `https://accounts\.acme\.example`}}, TrustedRoot: sig.RootFile},
			bundles: [][]byte{sig.SignBlob(t, alice, issuer, module)}, signer: alice},
		{name: "identity regexp is anchored", spec: sigpolicy.Spec{Signers: []sigpolicy.Signer{{IdentityRegexp: `alice@acme\.example`, Issuer: issuer}}, TrustedRoot: sig.RootFile},
			bundles: [][]byte{sig.SignBlob(t, "alice@acme.example.evil.example", issuer, module)},
			err:     []string{"signed by alice@acme.example.evil.example (issuer " + issuer + "), who is not a signer the policy accepts", "wanted a signature by ~/alice@acme\\.example/"}},
		{name: "second bundle satisfies", spec: byAlice,
			bundles: [][]byte{[]byte("{}"), sig.SignBlob(t, "mallory@acme.example", issuer, module), sig.SignBlob(t, alice, issuer, module)}, signer: alice},
		{name: "wrong identity", spec: byAlice,
			bundles: [][]byte{sig.SignDigest(t, "mallory@evil.example", issuer, d, sigpolicy.CosignSignPredicate)},
			err:     []string{"found: bundle 1: signed by mallory@evil.example (issuer " + issuer + ")", "wanted a signature by " + alice + " (issuer " + issuer + ")"}},
		{name: "wrong issuer", spec: byAlice,
			bundles: [][]byte{sig.SignBlob(t, alice, "https://evil.example", module)},
			err:     []string{"signed by " + alice + " (issuer https://evil.example)"}},
		{name: "another Sigstore", spec: byAlice,
			bundles: [][]byte{other.SignBlob(t, alice, issuer, module)},
			err:     []string{"a signature claiming " + alice, "does not verify"}},
		{name: "expired certificate", spec: byAlice,
			bundles: [][]byte{sig.SignDigestAt(t, alice, issuer, d, sigpolicy.CosignSignPredicate, time.Now().Add(30*time.Minute))},
			err:     []string{"does not verify", "outside certificate validity"}},
		{name: "signature of another module", spec: byAlice,
			bundles: [][]byte{sig.SignBlob(t, alice, issuer, []byte("another module"))},
			err:     []string{"does not verify"}},
		{name: "an attestation is not a signature", spec: byAlice,
			bundles: [][]byte{sig.SignDigest(t, alice, issuer, d, "https://slsa.dev/provenance/v1")},
			err:     []string{"an in-toto attestation of type \"https://slsa.dev/provenance/v1\", not a signature"}},
		{name: "malformed bundle", spec: byAlice,
			bundles: [][]byte{[]byte(`{"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json"`)},
			err:     []string{"bundle 1: malformed bundle"}},
		{name: "truncated bundle", spec: byAlice,
			bundles: [][]byte{truncate(sig.SignBlob(t, alice, issuer, module))},
			err:     []string{"malformed bundle"}},
		{name: "oversized bundle", spec: byAlice,
			bundles: [][]byte{bytes.Repeat([]byte(" "), sigpolicy.MaxBundleSize+1)},
			err:     []string{"over the 1048576 read"}},
		// cosign 2's sign-blob --bundle file (cosign's LocalSignedPayload)
		// and its .sig tag (as the puller gathers it, oci.CosignSig): a
		// key signature verifies under the key rules; a keyless one is
		// named with the flag that re-signs it.
		{name: "cosign 2 sign-blob --bundle, key", spec: byKey,
			bundles: [][]byte{key.SignLegacyBlob(t, module)}, signer: "cosign.pub"},
		{name: "cosign 2 sign-blob --bundle, another module", spec: byKey,
			bundles: [][]byte{key.SignLegacyBlob(t, []byte("another module"))},
			err:     []string{"a cosign 2 sign-blob --bundle file by none of the policy's keys, or not of this module"}},
		{name: "cosign 2 sign-blob --bundle, another key", spec: byKey,
			bundles: [][]byte{otherKey.SignLegacyBlob(t, module)},
			err:     []string{"by none of the policy's keys"}},
		{name: "cosign 2 sign-blob --bundle, key where identities are wanted", spec: byAlice,
			bundles: [][]byte{key.SignLegacyBlob(t, module)},
			err:     []string{"a cosign 2 sign-blob --bundle file signed with a key; the policy accepts only certificate identities"}},
		// Keyless cosign 2 formats verify under the identity policy, offline,
		// their Rekor entry's signed entry timestamp checked against the
		// trusted root (as a v0.1 Sigstore bundle's inclusion promise is).
		{name: "cosign 2 sign-blob --bundle, keyless", spec: byAlice,
			bundles: [][]byte{sig.SignLegacyBlob(t, alice, issuer, module)}, signer: alice + " (issuer " + issuer + ")"},
		{name: "cosign 2 sign-blob --bundle, keyless, another module", spec: byAlice,
			bundles: [][]byte{sig.SignLegacyBlob(t, alice, issuer, []byte("another module"))},
			err:     []string{"does not verify"}},
		{name: "cosign 2 sign-blob --bundle, keyless, another signer", spec: byAlice,
			bundles: [][]byte{sig.SignLegacyBlob(t, "mallory@evil.example", issuer, module)},
			err:     []string{"signed by mallory@evil.example (issuer " + issuer + "), who is not a signer the policy accepts"}},
		{name: "cosign 2 sign-blob --bundle, keyless, another Sigstore", spec: byAlice,
			bundles: [][]byte{other.SignLegacyBlob(t, alice, issuer, module)},
			err:     []string{"does not verify"}},
		{name: "cosign 2 sign-blob --bundle, keyless, entry swapped", spec: byAlice,
			bundles: [][]byte{swapRekor(t, sig.SignLegacyBlob(t, alice, issuer, module), sig.SignLegacyBlob(t, alice, issuer, []byte("other")))},
			err:     []string{"does not verify"}},
		{name: "cosign 2 sign-blob --bundle, keyless, no log entry", spec: byAlice,
			bundles: [][]byte{dropKey(t, sig.SignLegacyBlob(t, alice, issuer, module), "rekorBundle")},
			err:     []string{"has no transparency-log entry", "re-sign it as a Sigstore bundle with cosign sign-blob --new-bundle-format --bundle FILE.wasm.sigstore.json FILE.wasm"}},
		{name: "cosign 2 sign-blob --bundle, keyless where keys are wanted", spec: byKey,
			bundles: [][]byte{sig.SignLegacyBlob(t, alice, issuer, module)},
			err:     []string{"with a certificate; the policy accepts only keys"}},
		{name: "cosign 2 sign-blob --bundle, bad base64", spec: byKey,
			bundles: [][]byte{[]byte(`{"base64Signature":"%%%"}`)},
			err:     []string{"malformed cosign 2 sign-blob --bundle file"}},
		{name: "cosign .sig tag, key", spec: byKey,
			bundles: [][]byte{sigDoc(t, sigtest.SimpleSigning("r/m", d), key, "")}, signer: "cosign.pub"},
		{name: "cosign .sig tag of another manifest", spec: byKey,
			bundles: [][]byte{sigDoc(t, sigtest.SimpleSigning("r/m", sigtest.Digest([]byte("other"))), key, "")},
			err:     []string{"the cosign .sig tag signs \"sha256:"}},
		{name: "cosign .sig tag, payload of another type", spec: byKey,
			bundles: [][]byte{sigDoc(t, []byte(`{"critical":{"image":{"docker-manifest-digest":"`+d+`"},"type":"attestation"}}`), key, "")},
			err:     []string{"not a cosign container image signature"}},
		{name: "cosign .sig tag, payload swapped", spec: byKey,
			bundles: [][]byte{swapPayload(sigDoc(t, sigtest.SimpleSigning("r/m", sigtest.Digest([]byte("other"))), key, ""), sigtest.SimpleSigning("r/m", d))},
			err:     []string{"by none of the policy's keys, or not of this module"}},
		{name: "cosign .sig tag, keyless", spec: byAlice,
			bundles: [][]byte{sig.SignLegacySigTag(t, alice, issuer, sigtest.SimpleSigning("r/m", d))}, signer: alice},
		{name: "cosign .sig tag, keyless, of another manifest", spec: byAlice,
			bundles: [][]byte{sig.SignLegacySigTag(t, alice, issuer, sigtest.SimpleSigning("r/m", sigtest.Digest([]byte("other"))))},
			err:     []string{"the cosign .sig tag signs \"sha256:"}},
		{name: "cosign .sig tag, keyless, payload swapped", spec: byAlice,
			bundles: [][]byte{swapPayload(sig.SignLegacySigTag(t, alice, issuer, sigtest.SimpleSigning("r/m", sigtest.Digest([]byte("other")))), sigtest.SimpleSigning("r/m", d))},
			err:     []string{"does not verify"}},
		{name: "cosign .sig tag, keyless, unreadable certificate", spec: byAlice,
			bundles: [][]byte{sigDoc(t, sigtest.SimpleSigning("r/m", d), key, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")},
			err:     []string{"an unreadable certificate", "cosign sign --new-bundle-format REF@DIGEST"}},
		{name: "unsigned", spec: byAlice, err: []string{"carries no Sigstore bundle", "wants a signature by " + alice}},
		{name: "key sign-blob", spec: byKey, bundles: [][]byte{key.SignBlob(t, module)}, signer: "cosign.pub"},
		{name: "key cosign sign", spec: byKey, bundles: [][]byte{key.SignDigest(t, d, sigpolicy.CosignSignPredicate)}, signer: "key sha256:"},
		{name: "another key", spec: byKey, bundles: [][]byte{otherKey.SignBlob(t, module)},
			err: []string{"which is none of the policy's keys", "wanted a signature by key sha256:"}},
		{name: "key where identities are wanted", spec: byAlice, bundles: [][]byte{key.SignBlob(t, module)},
			err: []string{"the policy accepts only certificate identities"}},
		{name: "certificate where keys are wanted", spec: byKey, bundles: [][]byte{sig.SignBlob(t, alice, issuer, module)},
			err: []string{"signed by " + alice + " (issuer " + issuer + ") with a certificate; the policy accepts only keys"}},
		{name: "either a key or an identity", spec: sigpolicy.Spec{Signers: []sigpolicy.Signer{aliceRule, {Key: key.PubFile}}, TrustedRoot: sig.RootFile},
			bundles: [][]byte{key.SignBlob(t, module)}, signer: "cosign.pub"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := compile(t, tc.spec).Verify(subject(module), tc.bundles)
			if tc.signer != "" {
				require.NoError(t, err)
				require.True(t, v.Signer.Verified)
				require.Contains(t, v.Signer.String(), tc.signer)
				return
			}
			require.Error(t, err)
			for _, s := range tc.err {
				require.Contains(t, err.Error(), s)
			}
		})
	}
}

func truncate(b []byte) []byte { return b[:len(b)/2] }

// sigDoc is a cosign .sig layer as the puller hands it to the verifier.
func sigDoc(t testing.TB, payload []byte, key *sigtest.Key, cert string) []byte {
	b, err := json.Marshal(map[string]any{"mediaType": "application/vnd.dev.cosign.simplesigning.v1+json",
		"payload": payload, "signature": key.SignPayload(t, payload), "certificate": cert})
	require.NoError(t, err)
	return b
}

// swapRekor gives a cosign 2 sign-blob --bundle file the Rekor entry of another.
func swapRekor(t testing.TB, doc, from []byte) []byte {
	var a, b map[string]any
	require.NoError(t, json.Unmarshal(doc, &a))
	require.NoError(t, json.Unmarshal(from, &b))
	a["rekorBundle"] = b["rekorBundle"]
	out, err := json.Marshal(a)
	require.NoError(t, err)
	return out
}

// dropKey removes one member of a JSON object.
func dropKey(t testing.TB, doc []byte, k string) []byte {
	var m map[string]any
	require.NoError(t, json.Unmarshal(doc, &m))
	delete(m, k)
	out, err := json.Marshal(m)
	require.NoError(t, err)
	return out
}

// swapPayload replaces a .sig document's payload, keeping its signature.
func swapPayload(doc, payload []byte) []byte {
	var m map[string]any
	_ = json.Unmarshal(doc, &m)
	m["payload"] = payload
	b, _ := json.Marshal(m)
	return b
}

func TestCompileRefuses(t *testing.T) {
	dir := t.TempDir()
	sig := sigtest.NewKeyless(t, dir)
	key := sigtest.NewKey(t, dir, "cosign.pub")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "garbage.json"), []byte("{"), 0o644))
	for _, tc := range []struct {
		name string
		spec sigpolicy.Spec
		err  string
	}{
		{"identity without trusted root", sigpolicy.Spec{Signers: []sigpolicy.Signer{{Identity: alice, Issuer: issuer}}}, "give one (--trusted-root FILE"},
		{"identity without issuer", sigpolicy.Spec{Signers: []sigpolicy.Signer{{Identity: alice}}, TrustedRoot: sig.RootFile}, "exactly one of issuer and issuerRegexp"},
		{"both identity forms", sigpolicy.Spec{Signers: []sigpolicy.Signer{{Identity: alice, IdentityRegexp: ".*", Issuer: issuer}}, TrustedRoot: sig.RootFile}, "exactly one of identity and identityRegexp"},
		{"key and identity", sigpolicy.Spec{Signers: []sigpolicy.Signer{{Key: key.PubFile, Identity: alice, Issuer: issuer}}, TrustedRoot: sig.RootFile}, "not both"},
		{"bad regexp", sigpolicy.Spec{Signers: []sigpolicy.Signer{{IdentityRegexp: "(", Issuer: issuer}}, TrustedRoot: sig.RootFile}, "regular expression"},
		{"missing key", sigpolicy.Spec{Signers: []sigpolicy.Signer{{Key: filepath.Join(dir, "none.pub")}}}, "read public key"},
		{"not a key", sigpolicy.Spec{Signers: []sigpolicy.Signer{{Key: sig.RootFile}}}, "give a PEM \"PUBLIC KEY\" file"},
		{"bad trusted root", sigpolicy.Spec{TrustedRoot: filepath.Join(dir, "garbage.json")}, "trusted root"},
		{"empty signer", sigpolicy.Spec{Signers: []sigpolicy.Signer{{}}}, "signer 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sigpolicy.Compile(tc.spec, "")
			require.ErrorContains(t, err, tc.err)
		})
	}
	p, err := sigpolicy.Compile(sigpolicy.Spec{Signers: []sigpolicy.Signer{{Key: "cosign.pub"}}}, dir)
	require.NoError(t, err, "relative paths are taken from base")
	require.True(t, p.RequiresSignature())
	require.False(t, p.RequiresDigest())
}

func TestDescribe(t *testing.T) {
	dir := t.TempDir()
	sig := sigtest.NewKeyless(t, dir)
	key := sigtest.NewKey(t, dir, "cosign.pub")
	got := sigpolicy.Describe([][]byte{sig.SignBlob(t, alice, issuer, module), []byte("nope"),
		key.SignLegacyBlob(t, module), sigDoc(t, sigtest.SimpleSigning("r/m", sigtest.Digest(module)), key, "")})
	require.Equal(t, alice+" (issuer "+issuer+")", got[0])
	require.True(t, strings.HasPrefix(got[1], "malformed bundle"))
	require.Equal(t, "a key (cosign 2 sign-blob --bundle file)", got[2])
	require.Equal(t, "a key (cosign .sig tag signature)", got[3])
}

// FuzzVerify: a bundle is untrusted bytes.
func FuzzVerify(f *testing.F) {
	dir := f.TempDir()
	sig := sigtest.NewKeyless(f, dir)
	key := sigtest.NewKey(f, dir, "cosign.pub")
	f.Add(sig.SignBlob(f, alice, issuer, module))
	f.Add(key.SignBlob(f, module))
	f.Add(key.SignLegacyBlob(f, module))
	f.Add(sigDoc(f, sigtest.SimpleSigning("r/m", sigtest.Digest(module)), key, ""))
	f.Add([]byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","verificationMaterial":{"publicKey":{"hint":"x"}},"messageSignature":{}}`))
	p, err := sigpolicy.Compile(sigpolicy.Spec{Signers: []sigpolicy.Signer{{Identity: alice, Issuer: issuer}, {Key: key.PubFile}}, TrustedRoot: sig.RootFile}, "")
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := p.Verify(subject(module), [][]byte{b})
		if err == nil {
			require.True(t, v.Signer.Verified)
		}
		_ = sigpolicy.Describe([][]byte{b})
	})
}

// FuzzServe: the verifier program reads its request from stdin; whatever
// the bytes, it answers one response of its protocol (an error, or
// verdicts), and never panics.
func FuzzServe(f *testing.F) {
	dir := f.TempDir()
	key := sigtest.NewKey(f, dir, "cosign.pub")
	d := sigtest.Digest(module)
	raw, err := hex.DecodeString(strings.TrimPrefix(d, "sha256:"))
	require.NoError(f, err)
	req, err := json.Marshal(map[string]any{"protocol": 1, "op": "verify", "spec": sigpolicy.Spec{Signers: []sigpolicy.Signer{{Key: key.PubFile}}},
		"digest": raw, "bundles": [][]byte{key.SignBlob(f, module)}})
	require.NoError(f, err)
	f.Add(req)
	f.Add([]byte(`{"protocol":1,"op":"describe","bundles":["bm9wZQ=="]}`))
	f.Add([]byte(`{"protocol":1,"op":"check","spec":{"trustedRoot":"/nonexistent"}}`))
	f.Add([]byte(`{"protocol":2}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		require.NoError(t, sigpolicy.Serve(bytes.NewReader(in), &out))
		var res struct {
			Protocol int `json:"protocol"`
		}
		require.NoError(t, json.Unmarshal(out.Bytes(), &res))
		require.Equal(t, 1, res.Protocol)
	})
}
