package oci

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// tarEntry is one file of a hand-built tar layer.
type tarEntry struct {
	name string
	typ  byte
	body []byte
	link string
}

func makeTar(t testing.TB, gz bool, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w = &buf
	var zw *gzip.Writer
	tw := tar.NewWriter(w)
	if gz {
		zw = gzip.NewWriter(w)
		tw = tar.NewWriter(zw)
	}
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		h := &tar.Header{Name: e.name, Typeflag: typ, Mode: 0o644, Linkname: e.link}
		if typ == tar.TypeReg {
			h.Size = int64(len(e.body))
		}
		require.NoError(t, tw.WriteHeader(h))
		if typ == tar.TypeReg {
			_, err := tw.Write(e.body)
			require.NoError(t, err)
		}
	}
	require.NoError(t, tw.Close())
	if zw != nil {
		require.NoError(t, zw.Close())
	}
	return buf.Bytes()
}

// layout is a manifest (and maybe an index over it) built by hand the way
// another tool publishes a module.
type layout struct {
	artifactType string
	manifestType string // "" leaves the field out
	configType   string
	config       []byte
	layerType    string
	layer        []byte
	index        string // "", or the index media type: the manifest goes under wasi/wasm beside others
}

// publish uploads l under repoTag and returns the digest the tag names.
func (l layout) publish(t *testing.T, tr *testRegistry, repoTag string) string {
	t.Helper()
	s, err := tr.client().open(ctx(t), tr.ref(t, repoTag), true)
	require.NoError(t, err)
	cfg := l.config
	if cfg == nil {
		cfg = []byte("{}")
	}
	require.NoError(t, s.putBlob(ctx(t), cfg, l.configType))
	require.NoError(t, s.putBlob(ctx(t), l.layer, l.layerType))
	mt := l.manifestType
	m, err := json.Marshal(manifest{SchemaVersion: 2, MediaType: mt, ArtifactType: l.artifactType,
		Config: Descriptor{MediaType: l.configType, Digest: Digest(cfg), Size: int64(len(cfg))},
		Layers: []Descriptor{{MediaType: l.layerType, Digest: Digest(l.layer), Size: int64(len(l.layer)),
			Annotations: map[string]string{AnnotationTitle: "module.wasm"}}}})
	require.NoError(t, err)
	if mt == "" {
		mt = MediaTypeManifest
	}
	tag := tr.ref(t, repoTag).Tag
	if l.index == "" {
		_, err = s.putManifest(ctx(t), tag, m, mt)
		require.NoError(t, err)
		return Digest(m)
	}
	_, err = s.putManifest(ctx(t), Digest(m), m, mt)
	require.NoError(t, err)
	other := []byte(`{"schemaVersion":2,"mediaType":"` + mt + `","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"` + Digest(cfg) + `","size":2},"layers":[]}`)
	_, err = s.putManifest(ctx(t), Digest(other), other, mt)
	require.NoError(t, err)
	idx := fmt.Sprintf(`{"schemaVersion":2,"mediaType":%q,"manifests":[`+
		`{"mediaType":%q,"digest":%q,"size":%d,"platform":{"os":"linux","architecture":"amd64"}},`+
		`{"mediaType":%q,"digest":%q,"size":%d,"platform":{"os":"wasi","architecture":"wasm"}},`+
		`{"mediaType":%q,"digest":%q,"size":%d,"platform":{"os":"unknown","architecture":"unknown"}}]}`,
		l.index, mt, Digest(other), len(other), mt, Digest(m), len(m), mt, Digest(other), len(other))
	_, err = s.putManifest(ctx(t), tag, []byte(idx), l.index)
	require.NoError(t, err)
	return Digest([]byte(idx))
}

// Every layout another tool publishes a lone module in is pulled, pinned
// to the digest the tag names (the index's, for a multi-platform image),
// and yields the module's bytes, online and from the store offline.
func TestPullAcceptsEveryModuleLayout(t *testing.T) {
	wasm := testWasm(3000)
	imageTar := makeTar(t, true, tarEntry{name: "./", typ: tar.TypeDir}, tarEntry{name: "LICENSE", body: []byte("MIT")},
		tarEntry{name: "plugin.wasm", body: wasm})
	imageConfig := []byte(`{"architecture":"wasm","os":"wasi","rootfs":{"type":"layers","diff_ids":[]}}`)
	for _, tc := range []struct {
		name string
		l    layout
	}{
		{"oras push, no types", layout{artifactType: "application/vnd.unknown.artifact.v1", manifestType: MediaTypeManifest,
			configType: MediaTypeEmpty, layerType: mediaTypeOCITar, layer: wasm}},
		{"oras push --artifact-type wasm config", layout{artifactType: MediaTypeWasmConfig, manifestType: MediaTypeManifest,
			configType: MediaTypeEmpty, layerType: MediaTypeWasm, layer: wasm}},
		{"wasm-to-oci content layer", layout{configType: "application/vnd.wasm.config.v1+json",
			layerType: mediaTypeWasmContent, layer: wasm}},
		{"Docker+Wasm module layer", layout{manifestType: MediaTypeManifest, configType: "application/vnd.oci.image.config.v1+json",
			config: imageConfig, layerType: mediaTypeModuleContent, layer: wasm}},
		{"OCI image, tar.gz layer", layout{manifestType: MediaTypeManifest, configType: "application/vnd.oci.image.config.v1+json",
			config: imageConfig, layerType: mediaTypeOCITarGzip, layer: imageTar}},
		{"OCI image, plain tar layer", layout{manifestType: MediaTypeManifest, configType: "application/vnd.oci.image.config.v1+json",
			config: imageConfig, layerType: mediaTypeOCITar, layer: makeTar(t, false, tarEntry{name: "/app/plugin.wasm", body: wasm})}},
		{"Docker image", layout{manifestType: mediaTypeDockerManifest, configType: "application/vnd.docker.container.image.v1+json",
			config: imageConfig, layerType: mediaTypeDockerTarGzip, layer: imageTar}},
		{"OCI index choosing wasi/wasm", layout{manifestType: MediaTypeManifest, configType: "application/vnd.oci.image.config.v1+json",
			config: imageConfig, layerType: mediaTypeOCITarGzip, layer: imageTar, index: MediaTypeIndex}},
		{"Docker list choosing wasi/wasm", layout{manifestType: mediaTypeDockerManifest, configType: "application/vnd.docker.container.image.v1+json",
			config: imageConfig, layerType: mediaTypeDockerTarGzip, layer: imageTar, index: mediaTypeDockerList}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTestRegistry(t, false)
			top := tc.l.publish(t, tr, "acme/mod:1")
			store := newStore(t)
			p, err := tr.client().Pull(ctx(t), tr.ref(t, "acme/mod:1"), store, 1<<20)
			require.NoError(t, err)
			require.Equal(t, top, p.Ref.Digest, "the digest pinned is the one the tag names")
			got, err := store.Module(p.Manifest, 1<<20)
			require.NoError(t, err)
			require.Equal(t, wasm, got)

			tr.Close()
			for _, r := range []Ref{p.Ref, tr.ref(t, "acme/mod:1")} {
				l, err := Local(store, r, 1<<20)
				require.NoError(t, err)
				require.Equal(t, p.Ref, l.Ref)
				got, err := store.Module(l.Manifest, 1<<20)
				require.NoError(t, err)
				require.Equal(t, wasm, got)
			}
		})
	}
}

// What holds no module, or more than one, or hides it, is refused with
// what was found and the command that publishes a servable artifact.
func TestPullRefusesLayoutsWithoutOneModule(t *testing.T) {
	wasm := testWasm(100)
	imageConfig := []byte(`{"architecture":"amd64","os":"linux"}`)
	image := func(layerType string, layer []byte) layout {
		return layout{manifestType: MediaTypeManifest, configType: "application/vnd.oci.image.config.v1+json",
			config: imageConfig, layerType: layerType, layer: layer}
	}
	for _, tc := range []struct {
		name string
		l    layout
		msg  string
	}{
		{"helm chart", layout{configType: "application/vnd.cncf.helm.config.v1+json",
			layerType: "application/vnd.cncf.helm.chart.content.v1.tar+gzip", layer: []byte("chart")},
			`has a layer of media type "application/vnd.cncf.helm.chart.content.v1.tar+gzip", which holds no module`},
		{"tar without a module", image(mediaTypeOCITarGzip, makeTar(t, true, tarEntry{name: "bin/sh", body: []byte("#!")})),
			"the tar holds no .wasm file"},
		{"tar with two modules", image(mediaTypeOCITar, makeTar(t, false, tarEntry{name: "a.wasm", body: wasm}, tarEntry{name: "b.wasm", body: wasm})),
			`several .wasm files ("a.wasm", "b.wasm")`},
		{"module is a symlink", image(mediaTypeOCITar, makeTar(t, false, tarEntry{name: "plugin.wasm", typ: tar.TypeSymlink, link: "/etc/passwd"})),
			`"plugin.wasm" is not a regular file`},
		{"module is a hard link", image(mediaTypeOCITar, makeTar(t, false, tarEntry{name: "x", body: wasm}, tarEntry{name: "plugin.wasm", typ: tar.TypeLink, link: "x"})),
			`"plugin.wasm" is not a regular file`},
		{"path climbs out", image(mediaTypeOCITar, makeTar(t, false, tarEntry{name: "../../plugin.wasm", body: wasm})),
			"climbs out of its root"},
		{"index without wasi/wasm", layout{manifestType: MediaTypeManifest, configType: "application/vnd.oci.image.config.v1+json",
			config: imageConfig, layerType: mediaTypeOCITar, layer: makeTar(t, false, tarEntry{name: "m.wasm", body: wasm}), index: "bad"},
			"no wasi/wasm image (platforms: linux/amd64, linux/amd64, unknown/unknown)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTestRegistry(t, false)
			if tc.l.index == "bad" {
				// Every entry of the index is linux/amd64 or unknown.
				tc.l.index = MediaTypeIndex
				tr.setHook(func(w http.ResponseWriter, r *http.Request) bool {
					if r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/manifests/1") {
						var buf bytes.Buffer
						_, _ = buf.ReadFrom(r.Body)
						r.Body = nopCloser{bytes.NewReader(bytes.Replace(buf.Bytes(), []byte(`"os":"wasi","architecture":"wasm"`), []byte(`"os":"linux","architecture":"amd64"`), 1))}
						r.ContentLength = -1
					}
					return false
				})
			}
			tc.l.publish(t, tr, "acme/mod:1")
			_, err := tr.client().Pull(ctx(t), tr.ref(t, "acme/mod:1"), newStore(t), 1<<20)
			require.ErrorIs(t, err, ErrNotModule)
			require.ErrorContains(t, err, tc.msg)
			require.ErrorContains(t, err, "oras push REG/REPO:TAG --artifact-type application/vnd.wasm.config.v0+json module.wasm:application/wasm")
		})
	}
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// The bounds of a tar layer: entries, the module's size, and what it
// unpacks to (a gzip bomb stops at the cap, not at the end of the bomb).
func TestExtractModuleBounds(t *testing.T) {
	wasm := testWasm(100)
	many := []tarEntry{{name: "m.wasm", body: wasm}}
	for i := range MaxTarEntries {
		many = append(many, tarEntry{name: fmt.Sprintf("f%d", i)})
	}
	bomb := makeTar(t, true, tarEntry{name: "zeros", body: make([]byte, 8<<20)}, tarEntry{name: "m.wasm", body: wasm})
	require.Less(t, len(bomb), 64<<10, "the bomb is small compressed")
	for _, tc := range []struct {
		name  string
		layer []byte
		max   int64
		err   error
		msg   string
	}{
		{"too many entries", makeTar(t, false, many...), 1 << 20, ErrNotModule, fmt.Sprintf("more than %d entries", MaxTarEntries)},
		{"module over the cap", makeTar(t, false, tarEntry{name: "m.wasm", body: wasm}), 50, ErrTooLarge, `"m.wasm" is 108 bytes, the module size limit is 50`},
		{"gzip bomb", bomb, 1 << 20, ErrTooLarge, "unpacks to more than"},
		{"not a tar", []byte("this is not a tar archive, not gzip, not wasm at all, just text that goes on for a while............................................................................................................................................................................................................................................................................................................................................................................................................................................................................"), 1 << 20, ErrNotModule, "not a readable tar"},
		{"bad gzip", append([]byte{0x1f, 0x8b}, "garbage"...), 1 << 20, ErrNotModule, "not a gzip-compressed tar"},
		{"raw module over the cap", wasm, 50, ErrTooLarge, "the module is 108 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ExtractModule(tc.layer, PackTar, tc.max)
			require.ErrorIs(t, err, tc.err)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

// A tar layer is checked against its digest like any blob: a registry that
// swaps the tarball for another (holding another module) is refused.
func TestPullTarLayerChecksItsDigest(t *testing.T) {
	tr := newTestRegistry(t, false)
	good := makeTar(t, true, tarEntry{name: "m.wasm", body: testWasm(100)})
	evil := makeTar(t, true, tarEntry{name: "m.wasm", body: testWasm(101)})
	layout{manifestType: MediaTypeManifest, configType: "application/vnd.oci.image.config.v1+json",
		layerType: mediaTypeOCITarGzip, layer: good}.publish(t, tr, "acme/mod:1")
	tr.setHook(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/blobs/"+Digest(good)) {
			_, _ = w.Write(evil[:min(len(evil), len(good))])
			return true
		}
		return false
	})
	store := newStore(t)
	_, err := tr.client().Pull(ctx(t), tr.ref(t, "acme/mod:1"), store, 1<<20)
	require.ErrorIs(t, err, ErrDigest)
	require.Empty(t, storeFiles(t, store))
}

// FuzzExtractModule: a tar layer is untrusted bytes.
func FuzzExtractModule(f *testing.F) {
	f.Add(makeTar(f, false, tarEntry{name: "m.wasm", body: testWasm(10)}))
	f.Add(makeTar(f, true, tarEntry{name: "a.wasm", body: testWasm(10)}, tarEntry{name: "b", body: []byte("x")}))
	f.Add(testWasm(10))
	f.Fuzz(func(t *testing.T, b []byte) {
		w, err := ExtractModule(b, PackTar, 1<<16)
		if err == nil {
			require.LessOrEqual(t, len(w), 1<<16)
		}
		_, _ = ChooseFromIndex(b)
	})
}

// A cosign signature in the .sig tag layout (cosign 2's default: a
// simple-signing payload layer, the signature and certificate in
// annotations) is fetched, its payload checked against its digest, and
// handed on beside the bundles as a CosignSig document, kept in the store
// for offline loads.
func TestPullFindsCosignSigTag(t *testing.T) {
	tr := newTestRegistry(t, false)
	pinned := push(t, tr, "acme/mod:1", testWasm(100))
	p, err := tr.client().Pull(ctx(t), tr.ref(t, "acme/mod:1"), newStore(t), 1<<20)
	require.NoError(t, err)
	require.Empty(t, p.Bundles)

	s, err := tr.client().open(ctx(t), pinned, true)
	require.NoError(t, err)
	payload := []byte(`{"critical":{"identity":{"docker-reference":"` + tr.host + `/acme/mod"},"image":{"docker-manifest-digest":"` + pinned.Digest + `"},"type":"cosign container image signature"},"optional":null}`)
	cfg := []byte(`{"architecture":"","os":"","config":{},"rootfs":{"type":"layers","diff_ids":["` + Digest(payload) + `"]}}`)
	require.NoError(t, s.putBlob(ctx(t), payload, MediaTypeCosignSig))
	require.NoError(t, s.putBlob(ctx(t), cfg, "application/vnd.oci.image.config.v1+json"))
	m, err := json.Marshal(manifest{SchemaVersion: 2, MediaType: MediaTypeManifest,
		Config: Descriptor{MediaType: "application/vnd.oci.image.config.v1+json", Digest: Digest(cfg), Size: int64(len(cfg))},
		Layers: []Descriptor{{MediaType: MediaTypeCosignSig, Digest: Digest(payload), Size: int64(len(payload)),
			Annotations: map[string]string{annotationCosignSignature: "MEUCIQDx", annotationCosignCert: "PEM"}}}})
	require.NoError(t, err)
	_, err = s.putManifest(ctx(t), "sha256-"+DigestHex(pinned.Digest)+".sig", m, MediaTypeManifest)
	require.NoError(t, err)

	store := newStore(t)
	p, err = tr.client().Pull(ctx(t), tr.ref(t, "acme/mod:1"), store, 1<<20)
	require.NoError(t, err)
	require.NoError(t, p.ReferrersErr)
	require.Len(t, p.Bundles, 1)
	b, err := store.Read(p.Bundles[0], 1<<20)
	require.NoError(t, err)
	var doc CosignSig
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Equal(t, CosignSig{MediaType: MediaTypeCosignSig, Payload: payload, Signature: "MEUCIQDx", Certificate: "PEM"}, doc)

	tr.Close()
	l, err := Local(store, pinned, 1<<20)
	require.NoError(t, err)
	require.Equal(t, p.Bundles, l.Bundles, "offline, the signature is still there")
}
