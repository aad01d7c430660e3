package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/cmd/mcp-wasm/defaultprovider"
	"github.com/mcp-wasm/mcp-wasm/internal/oci"
	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy/sigtest"
)

// wasiImage is a Docker+Wasm image the way `docker buildx build
// --platform wasi/wasm` of a `FROM scratch` + `COPY plugin.wasm /` makes
// it (the layout hyper-mcp's plugins ship in): an index choosing wasi/wasm
// beside an attestation-like entry, an image whose one layer is a tar.gz
// holding the module. go-containerregistry builds it, not our code.
func wasiImage(t *testing.T, wasm []byte) v1.ImageIndex {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	require.NoError(t, tw.WriteHeader(&tar.Header{Name: "plugin.wasm", Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(wasm))}))
	_, err := tw.Write(wasm)
	require.NoError(t, err)
	require.NoError(t, tw.Close())
	require.NoError(t, zw.Close())
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), static.NewLayer(buf.Bytes(), types.OCILayer))
	require.NoError(t, err)
	cfg, err := img.ConfigFile()
	require.NoError(t, err)
	cfg.OS, cfg.Architecture = "wasi", "wasm"
	img, err = mutate.ConfigFile(img, cfg)
	require.NoError(t, err)
	other, err := random.Image(64, 1)
	require.NoError(t, err)
	return mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex),
		mutate.IndexAddendum{Add: other, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "unknown", Architecture: "unknown"}}},
		mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "wasi", Architecture: "wasm"}}})
}

// TestE2E_OCIContainerImage: a wasi/wasm container image is pulled, pinned
// to its index's digest and served through a real MCP client; an image
// with no module in it is refused with the command that publishes one.
func TestE2E_OCIContainerImage(t *testing.T) {
	f := newOCIFixture(t)
	idx := wasiImage(t, defaultprovider.Wasm())
	ref, err := name.ParseReference(f.reg.Host+"/acme/wasi-image:1", name.Insecure)
	require.NoError(t, err)
	require.NoError(t, remote.WriteIndex(ref, idx))
	d, err := idx.Digest()
	require.NoError(t, err)
	pinned := "oci://" + f.reg.Host + "/acme/wasi-image:1@" + d.String()

	code, out := ociCLI(t, "pull", "--insecure-registry", f.reg.Host, f.reg.Host+"/acme/wasi-image:1")
	require.Zero(t, code, out)
	require.Contains(t, out, pinned)
	cs := connect(t, "2025-11-25", "--module", pinned, "--allow-dir", f.data, "--insecure-registry", f.reg.Host)
	require.Equal(t, []string{uriIn(t, f.data, "hello.txt")}, uris(t, cs))
	require.NoError(t, cs.Close())

	img, err := random.Image(512, 1)
	require.NoError(t, err)
	ref, err = name.ParseReference(f.reg.Host+"/acme/image:1", name.Insecure)
	require.NoError(t, err)
	require.NoError(t, remote.Write(ref, img))
	code, out = ociCLI(t, "pull", "--insecure-registry", f.reg.Host, f.reg.Host+"/acme/image:1")
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "the tar holds no .wasm file")
	require.Contains(t, out, "oras push REG/REPO:TAG --artifact-type application/vnd.wasm.config.v0+json module.wasm:application/wasm")
}

// rawManifest is a manifest to PUT as it is.
type rawManifest struct {
	b  []byte
	mt types.MediaType
}

func (m rawManifest) RawManifest() ([]byte, error)        { return m.b, nil }
func (m rawManifest) MediaType() (types.MediaType, error) { return m.mt, nil }

// TestE2E_OCICosignSigTag: a module signed with cosign 2's default, the
// .sig tag, with a key: it verifies under a --signature-key policy, by the
// verifier program, and is refused under another key; signed keyless (a
// certificate and a Rekor bundle annotation) it verifies under an identity
// policy offline with the trusted root given, and is refused for another
// identity (the refusals of keyless ones that cannot be checked, named
// with the flag that re-signs them: internal/sigpolicy/offline).
func TestE2E_OCICosignSigTag(t *testing.T) {
	f := newOCIFixture(t)
	key := sigtest.NewKey(t, f.dir, "cosign.pub")
	other := sigtest.NewKey(t, f.dir, "other.pub")
	sig := sigtest.NewKeyless(t, f.dir)
	sign := func(repoTag string, annotate func(payload []byte) map[string]string) string {
		pinned := f.push(t, f.files, repoTag)
		r, err := oci.ParseRef(pinned)
		require.NoError(t, err)
		repo, err := name.NewRepository(f.reg.Host+"/"+r.Repository, name.Insecure)
		require.NoError(t, err)
		payload := sigtest.SimpleSigning(repo.String(), r.Digest)
		cfg := []byte(`{"architecture":"","os":"","config":{},"rootfs":{"type":"layers","diff_ids":["` + oci.Digest(payload) + `"]}}`)
		require.NoError(t, remote.WriteLayer(repo, static.NewLayer(payload, oci.MediaTypeCosignSig)))
		require.NoError(t, remote.WriteLayer(repo, static.NewLayer(cfg, types.OCIConfigJSON)))
		annJSON, err := json.Marshal(annotate(payload))
		require.NoError(t, err)
		m := fmt.Sprintf(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","size":%d,"digest":%q},"layers":[{"mediaType":%q,"size":%d,"digest":%q,"annotations":%s}]}`,
			len(cfg), oci.Digest(cfg), oci.MediaTypeCosignSig, len(payload), oci.Digest(payload), annJSON)
		require.NoError(t, remote.Put(repo.Tag("sha256-"+oci.DigestHex(r.Digest)+".sig"), rawManifest{[]byte(m), types.OCIManifestSchema1}))
		return pinned
	}
	pull := func(pinned string, policy ...string) (int, string) {
		return ociCLI(t, append(append([]string{"pull", "--insecure-registry", f.reg.Host}, policy...), strings.TrimPrefix(pinned, "oci://"))...)
	}

	byKey := func(payload []byte) map[string]string {
		return map[string]string{"dev.cosignproject.cosign/signature": key.SignPayload(t, payload)}
	}
	pinned := sign("acme/sigtag:1", byKey)
	code, out := pull(pinned, "--signature-key", key.PubFile)
	require.Zero(t, code, out)
	require.Contains(t, out, "cosign.pub")
	code, out = pull(pinned, "--signature-key", other.PubFile)
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "a cosign .sig tag signature by none of the policy's keys")

	keyless := sign("acme/sigtag:2", func(payload []byte) map[string]string { return sig.SigTagAnnotations(t, alice, issuer, payload) })
	code, out = pull(keyless, "--signature-identity", alice, "--signature-issuer", issuer, "--trusted-root", sig.RootFile)
	require.Zero(t, code, out)
	require.Contains(t, out, alice)
	code, out = pull(keyless, "--signature-identity", "bob@acme.example", "--signature-issuer", issuer, "--trusted-root", sig.RootFile)
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "signed by "+alice+" (issuer "+issuer+"), who is not a signer the policy accepts")

}
