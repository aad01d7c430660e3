package served

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/internal/modsource"
	"github.com/mcp-wasm/mcp-wasm/internal/oci"
	"github.com/mcp-wasm/mcp-wasm/internal/oci/ocitest"
	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy"
	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy/sigtest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/internal/testlog"
	"github.com/mcp-wasm/mcp-wasm/server"
)

const (
	alice  = "alice@acme.example"
	issuer = "https://accounts.acme.example"
)

type anonymous struct{}

func (anonymous) Resolve(authn.Resource) (authn.Authenticator, error) { return authn.Anonymous, nil }

// registry is an in-process registry and a Verified resolver whose module
// store is under dir.
type registry struct {
	reg     *ocitest.Registry
	client  *oci.Client
	resolve Resolver
}

func newRegistry(t *testing.T, dir string) *registry {
	t.Helper()
	r := &registry{reg: ocitest.New(t, false)}
	r.client = oci.NewClient(oci.Options{Insecure: []string{r.reg.Host}, Keychain: anonymous{}})
	store, err := oci.OpenStore(filepath.Join(dir, "store"))
	require.NoError(t, err)
	r.resolve = Verified(modsource.New(store, r.client))
	return r
}

// push publishes wasm as repoTag and returns the reference pinned to its
// manifest.
func (r *registry) push(t *testing.T, repoTag string, wasm []byte) config.ModuleRef {
	t.Helper()
	ref, err := oci.ParseRef("oci://" + r.reg.Host + "/" + repoTag)
	require.NoError(t, err)
	p, err := r.client.Push(t.Context(), ref, oci.Artifact{Wasm: wasm, Created: time.Unix(0, 0)})
	require.NoError(t, err)
	return config.ModuleRef(p.String())
}

func compile(t *testing.T, spec sigpolicy.Spec) *sigpolicy.Policy {
	t.Helper()
	p, err := sigpolicy.Compile(spec, "")
	require.NoError(t, err)
	return p
}

// TestResolvers_pinAndPolicy: every resolver holds a pin, and one that
// cannot verify signatures (a file read plainly, a built-in module)
// refuses a policy that wants one rather than load the module unchecked.
func TestResolvers_pinAndPolicy(t *testing.T) {
	path := testkit.Fixture("wat", "minimal.wasm")
	wasm := testkit.ReadFixture(t, "wat", "minimal.wasm")
	digest := oci.Digest(wasm)
	other := oci.Digest([]byte("other"))
	key := sigtest.NewKey(t, t.TempDir(), "cosign.pub")
	byKey := compile(t, sigpolicy.Spec{Signers: []sigpolicy.Signer{{Key: key.PubFile}}})
	pinned := compile(t, sigpolicy.Spec{RequireDigest: true})
	verified := Verified(modsource.New(nil, oci.NewClient(oci.Options{Keychain: anonymous{}})))
	resolvers := map[string]struct {
		resolve Resolver
		ref     config.ModuleRef
	}{
		"file":     {ResolveFile, config.ModuleRef(path)},
		"builtin":  {Builtin(map[config.ModuleRef][]byte{"builtin://m": wasm}, ResolveFile), "builtin://m"},
		"verified": {verified, config.ModuleRef(path)},
	}
	tests := []struct {
		name   string
		sha256 string
		policy *sigpolicy.Policy
		want   error  // nil: resolves
		msg    string // in the error
	}{
		{"no pin", "", nil, nil, ""},
		{"the pin", digest, nil, nil, ""},
		{"another pin", other, nil, modsource.ErrPin, "is " + digest + ", the pin says " + other},
		{"digest required, none", "", pinned, sigpolicy.ErrNotPinned, `add "sha256": "` + oci.DigestHex(digest) + `"`},
		{"digest required, pinned", digest, pinned, nil, ""},
		{"signature required", digest, byKey, sigpolicy.ErrUnsigned, "the policy wants a signature by key"},
	}
	for name, r := range resolvers {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				m, err := r.resolve(t.Context(), Request{Ref: r.ref, SHA256: tt.sha256, Policy: tt.policy, MaxBytes: 1 << 20})
				if tt.want == nil {
					require.NoError(t, err)
					require.Equal(t, wasm, m.Wasm)
					require.Equal(t, digest, m.Digest)
					return
				}
				require.ErrorIs(t, err, tt.want)
				require.ErrorContains(t, err, tt.msg)
				require.Zero(t, len(m.Wasm), "no bytes on a refusal")
			})
		}
	}
}

// TestVerified: a module file's .sigstore.json bundle is verified against
// the policy (the signer named, a wrong one refused naming both), a
// registry reference is pulled, pinned and then read offline, and a
// scheme nobody knows is refused.
func TestVerified(t *testing.T) {
	dir := t.TempDir()
	sig := sigtest.NewKeyless(t, dir)
	wasm := testkit.ReadFixture(t, "wat", "minimal.wasm")
	path := filepath.Join(dir, "minimal.wasm")
	require.NoError(t, os.WriteFile(path, wasm, 0o644))
	r := newRegistry(t, dir)
	byAlice := compile(t, sigpolicy.Spec{Signers: []sigpolicy.Signer{{Identity: alice, Issuer: issuer}}, TrustedRoot: sig.RootFile})
	req := Request{Ref: config.ModuleRef(path), Policy: byAlice, MaxBytes: 1 << 20, Signatures: true}

	_, err := r.resolve(t.Context(), req)
	require.ErrorIs(t, err, sigpolicy.ErrUnsigned)
	require.NoError(t, os.WriteFile(path+modsource.BundleSuffix, sig.SignBlob(t, "mallory@evil.example", issuer, wasm), 0o644))
	_, err = r.resolve(t.Context(), req)
	require.ErrorIs(t, err, sigpolicy.ErrUntrusted)
	require.ErrorContains(t, err, "signed by mallory@evil.example")
	require.ErrorContains(t, err, alice)
	require.NoError(t, os.WriteFile(path+modsource.BundleSuffix, sig.SignBlob(t, alice, issuer, wasm), 0o644))
	m, err := r.resolve(t.Context(), req)
	require.NoError(t, err)
	require.Equal(t, alice+" (issuer "+issuer+")", m.Signer)
	require.Equal(t, []string{alice + " (issuer " + issuer + ")"}, m.Signatures)
	require.Equal(t, path, m.Watch, "a file is watched")
	require.Empty(t, m.Pinned)

	pinned := r.push(t, "acme/minimal:1", wasm)
	tag := config.ModuleRef("oci://" + r.reg.Host + "/acme/minimal:1")
	m, err = r.resolve(t.Context(), Request{Ref: tag, MaxBytes: 1 << 20})
	require.NoError(t, err)
	require.Equal(t, wasm, m.Wasm)
	require.Equal(t, pinned, m.Pinned)
	require.Empty(t, m.Watch, "nothing local to watch")
	require.False(t, m.Offline)
	m, err = r.resolve(t.Context(), Request{Ref: pinned, MaxBytes: 1 << 20})
	require.NoError(t, err)
	require.True(t, m.Offline, "pinned and pulled: read from the store")
	require.Equal(t, "minimal:1", ModuleHint(tag))
	require.Equal(t, "minimal.wasm", ModuleHint(config.ModuleRef(path)))

	_, err = r.resolve(t.Context(), Request{Ref: "ftp://x/y.wasm", MaxBytes: 1 << 20})
	require.ErrorContains(t, err, "ftp:// references are not supported here")
}

// TestLoader_Lock: lock pins a config's registry tag to its manifest and
// every module to its bytes; the tag then moves, and the locked config
// keeps loading the old bytes while the tag loads the new.
func TestLoader_Lock(t *testing.T) {
	path := testkit.WriteConfig(t, "")
	dir := filepath.Dir(path)
	r := newRegistry(t, dir)
	minimal, good := testkit.ReadFixture(t, "wat", "minimal.wasm"), testkit.ReadFixture(t, "hostile", "good.wasm")
	pinned := r.push(t, "acme/provider:1", minimal)
	tag := "oci://" + r.reg.Host + "/acme/provider:1"
	text := `{"providers": [{"module": "` + tag + `", "name": "a"}, {"module": "good.wasm"}]}`
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	cfg, err := readConfig(path)
	require.NoError(t, err)

	loader := NewLoader(newTestRuntime(t), r.resolve, nil)
	out, mods, err := loader.Lock(t.Context(), cfg)
	require.NoError(t, err)
	require.Len(t, mods, 2)
	require.Equal(t, `{"providers": [{"module": "`+string(pinned)+`", "sha256": "`+oci.DigestHex(oci.Digest(minimal))+`", "name": "a"}, {"module": "good.wasm", "sha256": "`+oci.DigestHex(oci.Digest(good))+`"}]}`, string(out))
	require.NoError(t, config.WriteFile(path, out))

	r.push(t, "acme/provider:1", good) // the tag moves
	locked, err := readConfig(path)
	require.NoError(t, err)
	g, err := loader.Load(t.Context(), locked)
	require.NoError(t, err)
	require.Equal(t, oci.Digest(minimal), g.Providers()[0].Module().Digest, "the pin keeps the old bytes")
	require.Equal(t, pinned, g.Providers()[0].Module().Pinned)
	g.Close(t.Context())

	_, err = loader.Load(t.Context(), cfg) // the tag, now good.wasm's bytes beside good.wasm
	require.ErrorContains(t, err, `providers[1] (provider "good.wasm"): claims evil:, which overlaps evil: claimed by providers[0]`, "the tag follows the new bytes")

	// lock checks the signers of the policy, not its digest requirement.
	key := sigtest.NewKey(t, dir, "cosign.pub")
	require.NoError(t, os.WriteFile(path, []byte(`{"policy": {"requireDigest": true}, "providers": [{"module": "good.wasm"}]}`), 0o644))
	cfg, err = readConfig(path)
	require.NoError(t, err)
	_, _, err = loader.Lock(t.Context(), cfg)
	require.NoError(t, err, "a digest is what lock adds")
	require.NoError(t, os.WriteFile(path, []byte(`{"policy": {"signers": [{"key": "cosign.pub"}]}, "providers": [{"module": "good.wasm"}]}`), 0o644))
	cfg, err = readConfig(path)
	require.NoError(t, err)
	_, _, err = loader.Lock(t.Context(), cfg)
	require.ErrorIs(t, err, sigpolicy.ErrUnsigned)
	require.ErrorContains(t, err, `providers[0] (good.wasm)`)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "good.wasm")+modsource.BundleSuffix, key.SignBlob(t, good), 0o644))
	_, _, err = loader.Lock(t.Context(), cfg)
	require.NoError(t, err, "signed by the key")
}

// TestReload_refusesAnUnverifiedModule: serving a signed module under a
// policy, a reload whose module lost its signature, or whose pin no longer
// matches, is refused with the reason and where; the running providers
// keep serving clients.
func TestReload_refusesAnUnverifiedModule(t *testing.T) {
	path := testkit.WriteConfig(t, "")
	dir := filepath.Dir(path)
	sig := sigtest.NewKeyless(t, dir)
	good := testkit.ReadFixture(t, "hostile", "good.wasm")
	bundle := filepath.Join(dir, "good.wasm") + modsource.BundleSuffix
	require.NoError(t, os.WriteFile(bundle, sig.SignBlob(t, alice, issuer, good), 0o644))
	write := func(extra string) {
		require.NoError(t, os.WriteFile(path, []byte(`{"policy": {"signers": [{"identity": "`+alice+`", "issuer": "`+issuer+`"}], "trustedRoot": "trusted_root.json"},
"providers": [{"module": "good.wasm"`+extra+`}]}`), 0o644))
	}
	write("")
	reread := func() (*config.Config, error) { return readConfig(path) }
	cfg, err := reread()
	require.NoError(t, err)
	logs := &testlog.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	loader := NewLoader(newTestRuntime(t), newRegistry(t, dir).resolve, log)
	first, err := loader.Load(t.Context(), cfg)
	require.NoError(t, err)
	require.Equal(t, alice+" (issuer "+issuer+")", first.Providers()[0].Module().Signer)
	srv, err := server.New(server.NewConfig().WithProviders(serverProviders(first.Providers())...))
	require.NoError(t, err)
	set := NewSet(loader, first, SetOptions{Reread: reread, Publish: publishTo(srv), Log: log})
	defer set.Close(context.Background())
	reads := func() {
		t.Helper()
		require.Same(t, first, set.Current(), "the running generation")
		res, err := set.Providers()[0].Read(t.Context(), "evil:good")
		require.NoError(t, err)
		require.Equal(t, "ok", *res.Contents[0].Text)
	}

	require.NoError(t, os.Remove(bundle))
	err = set.Reload(t.Context(), "test")
	require.ErrorContains(t, err, `mcp.json:2:26: providers[0].module (provider "good.wasm"): load`)
	require.ErrorContains(t, err, "carries no Sigstore bundle, and the policy wants a signature by "+alice)
	require.Contains(t, logs.String(), "reload refused: still serving the previous providers")
	reads()

	require.NoError(t, os.WriteFile(bundle, sig.SignBlob(t, alice, issuer, good), 0o644))
	write(`, "sha256": "` + strings.Repeat("0", 64) + `"`)
	err = set.Reload(t.Context(), "test")
	require.ErrorContains(t, err, "does not match its pinned digest")
	require.ErrorContains(t, err, "is "+oci.Digest(good)+", the pin says sha256:"+strings.Repeat("0", 64))
	reads()

	write(`, "sha256": "` + oci.DigestHex(oci.Digest(good)) + `"`)
	require.NoError(t, set.Reload(t.Context(), "test"), "signed and pinned")
	require.NotSame(t, first, set.Current())
}
