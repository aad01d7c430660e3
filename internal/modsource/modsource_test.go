package modsource

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/oci"
	"github.com/mcp-wasm/mcp-wasm/internal/oci/ocitest"
	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy"
	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy/sigtest"
)

const (
	alice  = "alice@acme.example"
	issuer = "https://accounts.acme.example"
)

type anonymous struct{}

func (anonymous) Resolve(authn.Resource) (authn.Authenticator, error) { return authn.Anonymous, nil }

func wasm(tag string) []byte { return append([]byte("\x00asm\x01\x00\x00\x00"), tag...) }

type env struct {
	reg    *ocitest.Registry
	client *oci.Client
	store  *oci.Store
	res    *Resolver
	dir    string
}

func newEnv(t *testing.T) *env {
	e := &env{reg: ocitest.New(t, false), dir: t.TempDir()}
	e.client = oci.NewClient(oci.Options{Insecure: []string{e.reg.Host}, Keychain: anonymous{}})
	var err error
	e.store, err = oci.OpenStore(filepath.Join(e.dir, "store"))
	require.NoError(t, err)
	e.res = New(e.store, e.client)
	return e
}

func (e *env) push(t *testing.T, repoTag string, b []byte) oci.Ref {
	t.Helper()
	ref, err := oci.ParseRef("oci://" + e.reg.Host + "/" + repoTag)
	require.NoError(t, err)
	p, err := e.client.Push(ctxT(t), ref, oci.Artifact{Wasm: b, Created: time.Unix(0, 0)})
	require.NoError(t, err)
	return p
}

func ctxT(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return c
}

func policy(t *testing.T, spec sigpolicy.Spec) *sigpolicy.Policy {
	t.Helper()
	p, err := sigpolicy.Compile(spec, "")
	require.NoError(t, err)
	return p
}

func TestResolveFile(t *testing.T) {
	dir := t.TempDir()
	sig := sigtest.NewKeyless(t, dir)
	path := filepath.Join(dir, "notes.wasm")
	b := wasm("notes")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	d := oci.Digest(b)
	res := New(nil, nil)
	byAlice := policy(t, sigpolicy.Spec{Signers: []sigpolicy.Signer{{Identity: alice, Issuer: issuer}}, TrustedRoot: sig.RootFile})

	m, err := res.Resolve(ctxT(t), Request{Module: path, MaxSize: 1 << 20})
	require.NoError(t, err)
	require.Equal(t, b, m.Wasm)
	require.Equal(t, d, m.Digest)

	_, err = res.Resolve(ctxT(t), Request{Module: path, SHA256: oci.DigestHex(d), MaxSize: 1 << 20})
	require.NoError(t, err, "a pin that matches")

	other := oci.Digest([]byte("other"))
	_, err = res.Resolve(ctxT(t), Request{Module: path, SHA256: other, MaxSize: 1 << 20})
	require.ErrorIs(t, err, ErrPin)
	require.ErrorContains(t, err, "is "+d+", the pin says "+other)

	_, err = res.Resolve(ctxT(t), Request{Module: path, Policy: policy(t, sigpolicy.Spec{RequireDigest: true}), MaxSize: 1 << 20})
	require.ErrorIs(t, err, sigpolicy.ErrNotPinned)
	require.ErrorContains(t, err, `add "sha256": "`+oci.DigestHex(d)+`"`)

	_, err = res.Resolve(ctxT(t), Request{Module: path, Policy: byAlice, MaxSize: 1 << 20})
	require.ErrorIs(t, err, sigpolicy.ErrUnsigned)

	require.NoError(t, os.WriteFile(path+BundleSuffix, sig.SignBlob(t, "mallory@evil.example", issuer, b), 0o644))
	_, err = res.Resolve(ctxT(t), Request{Module: path, Policy: byAlice, MaxSize: 1 << 20})
	require.ErrorIs(t, err, sigpolicy.ErrUntrusted)
	require.ErrorContains(t, err, "signed by mallory@evil.example")

	require.NoError(t, os.WriteFile(path+BundleSuffix, sig.SignBlob(t, alice, issuer, b), 0o644))
	m, err = res.Resolve(ctxT(t), Request{Module: path, Policy: byAlice, MaxSize: 1 << 20})
	require.NoError(t, err)
	require.Equal(t, alice, m.Signer.Subject)
	require.Nil(t, m.Signatures, "a load verifies; it does not describe")
	m, err = res.Resolve(ctxT(t), Request{Module: path, Policy: byAlice, MaxSize: 1 << 20, Signatures: true})
	require.NoError(t, err)
	require.Equal(t, []string{alice + " (issuer " + issuer + ")"}, m.Signatures)

	_, err = res.Resolve(ctxT(t), Request{Module: path, MaxSize: 4})
	require.ErrorIs(t, err, oci.ErrTooLarge)
}

func TestResolveRegistry(t *testing.T) {
	e := newEnv(t)
	v1 := e.push(t, "acme/notes:1", wasm("v1"))
	tag := "oci://" + e.reg.Host + "/acme/notes:1"

	m, err := e.res.Resolve(ctxT(t), Request{Module: tag, MaxSize: 1 << 20})
	require.NoError(t, err)
	require.Equal(t, wasm("v1"), m.Wasm)
	require.Equal(t, v1.String(), m.Source)
	require.False(t, m.Offline)

	// The tag moves; the pinned reference keeps the old bytes, the tag
	// follows.
	e.push(t, "acme/notes:1", wasm("v2"))
	m, err = e.res.Resolve(ctxT(t), Request{Module: v1.String(), MaxSize: 1 << 20})
	require.NoError(t, err)
	require.Equal(t, wasm("v1"), m.Wasm)
	require.True(t, m.Offline, "pinned and pulled: no registry request")
	m, err = e.res.Resolve(ctxT(t), Request{Module: tag, MaxSize: 1 << 20})
	require.NoError(t, err)
	require.Equal(t, wasm("v2"), m.Wasm)

	// A pin of the module bytes holds through the tag.
	_, err = e.res.Resolve(ctxT(t), Request{Module: tag, SHA256: oci.Digest(wasm("v1")), MaxSize: 1 << 20})
	require.ErrorIs(t, err, ErrPin)
	require.ErrorContains(t, err, oci.Digest(wasm("v2"))+", the pin says "+oci.Digest(wasm("v1")))

	// A policy that requires digests refuses the tag.
	_, err = e.res.Resolve(ctxT(t), Request{Module: tag, Policy: policy(t, sigpolicy.Spec{RequireDigest: true}), MaxSize: 1 << 20})
	require.ErrorIs(t, err, sigpolicy.ErrNotPinned)

	// Offline: pinned works, the tag falls back to its last digest, saying so.
	e.reg.Close()
	m, err = e.res.Resolve(ctxT(t), Request{Module: v1.String(), MaxSize: 1 << 20})
	require.NoError(t, err)
	require.Equal(t, wasm("v1"), m.Wasm)
	m, err = e.res.Resolve(ctxT(t), Request{Module: tag, MaxSize: 1 << 20})
	require.NoError(t, err)
	require.Equal(t, wasm("v2"), m.Wasm)
	require.True(t, m.Offline)
	require.Contains(t, strings.Join(m.Notes, "\n"), "registry unreachable: using")

	_, err = e.res.Resolve(ctxT(t), Request{Module: "oci://" + e.reg.Host + "/acme/other:1", MaxSize: 1 << 20})
	require.ErrorIs(t, err, oci.ErrUnreachable, "never pulled and unreachable")
}

func TestResolveRegistrySignatures(t *testing.T) {
	e := newEnv(t)
	sig := sigtest.NewKeyless(t, e.dir)
	key := sigtest.NewKey(t, e.dir, "cosign.pub")
	byAlice := policy(t, sigpolicy.Spec{Signers: []sigpolicy.Signer{{Identity: alice, Issuer: issuer}}, TrustedRoot: sig.RootFile})
	ref := e.push(t, "acme/notes:1", wasm("v1"))

	// Pulled before it was signed: the load asks the registry again.
	_, err := e.res.Resolve(ctxT(t), Request{Module: ref.String(), MaxSize: 1 << 20})
	require.NoError(t, err)
	_, err = e.res.Resolve(ctxT(t), Request{Module: ref.String(), Policy: byAlice, MaxSize: 1 << 20})
	require.ErrorIs(t, err, sigpolicy.ErrUnsigned)

	_, err = e.client.AttachBundle(ctxT(t), ref, key.SignDigest(t, ref.Digest, sigtest.CosignSignPredicate))
	require.NoError(t, err)
	_, err = e.res.Resolve(ctxT(t), Request{Module: ref.String(), Policy: byAlice, MaxSize: 1 << 20})
	require.ErrorIs(t, err, sigpolicy.ErrUntrusted)
	require.ErrorContains(t, err, "the policy accepts only certificate identities")

	_, err = e.client.AttachBundle(ctxT(t), ref, sig.SignDigest(t, alice, issuer, ref.Digest, sigtest.CosignSignPredicate))
	require.NoError(t, err)
	m, err := e.res.Resolve(ctxT(t), Request{Module: ref.String(), Policy: byAlice, MaxSize: 1 << 20, Signatures: true})
	require.NoError(t, err)
	require.Equal(t, alice, m.Signer.Subject)
	require.Len(t, m.Signatures, 2)

	// Offline from the store, signatures included.
	e.reg.Close()
	m, err = e.res.Resolve(ctxT(t), Request{Module: ref.String(), Policy: byAlice, MaxSize: 1 << 20})
	require.NoError(t, err)
	require.True(t, m.Offline)
	require.Equal(t, alice, m.Signer.Subject)
}

// A blob changed in the registry is refused; a blob changed in the store is
// fetched again.
func TestResolveTampered(t *testing.T) {
	e := newEnv(t)
	ref := e.push(t, "acme/notes:1", wasm("v1"))
	layer := oci.Digest(wasm("v1"))
	e.reg.SetHook(func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasSuffix(r.URL.Path, "/blobs/"+layer) {
			_, _ = w.Write(wasm("v!"))
			return true
		}
		return false
	})
	_, err := e.res.Resolve(ctxT(t), Request{Module: ref.String(), MaxSize: 1 << 20})
	require.ErrorIs(t, err, oci.ErrDigest)
	require.False(t, e.store.Has(layer))

	e.reg.SetHook(nil)
	_, err = e.res.Resolve(ctxT(t), Request{Module: ref.String(), MaxSize: 1 << 20})
	require.NoError(t, err)
	path := filepath.Join(e.store.Dir(), "blobs", "sha256", oci.DigestHex(layer))
	require.NoError(t, os.WriteFile(path, wasm("v!"), 0o600))
	m, err := e.res.Resolve(ctxT(t), Request{Module: ref.String(), MaxSize: 1 << 20})
	require.NoError(t, err)
	require.Equal(t, wasm("v1"), m.Wasm)
}
