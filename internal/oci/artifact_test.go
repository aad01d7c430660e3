package oci

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestEncodeFollowsTheWasmArtifactLayout(t *testing.T) {
	wasm := testWasm(100)
	e, err := Artifact{Wasm: wasm, FileName: "notes.wasm", Created: time.Unix(1700000000, 0),
		Annotations: map[string]string{AnnotationProvider: "notes"}}.encode()
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(e.manifest, &m))
	require.Equal(t, MediaTypeManifest, m["mediaType"])
	require.Equal(t, float64(2), m["schemaVersion"])
	require.Equal(t, MediaTypeWasmConfig, m["config"].(map[string]any)["mediaType"])
	layers := m["layers"].([]any)
	require.Len(t, layers, 1)
	l := layers[0].(map[string]any)
	require.Equal(t, MediaTypeWasm, l["mediaType"])
	require.Equal(t, Digest(wasm), l["digest"])
	require.Equal(t, "notes.wasm", l["annotations"].(map[string]any)[AnnotationTitle])
	require.Equal(t, "notes", m["annotations"].(map[string]any)[AnnotationProvider])
	var cfg map[string]any
	require.NoError(t, json.Unmarshal(e.config, &cfg))
	require.Equal(t, map[string]any{"created": "2023-11-14T22:13:20Z", "architecture": "wasm", "os": "wasip1",
		"layerDigests": []any{Digest(wasm)}}, cfg)

	mod, err := ParseModuleManifest(e.manifest, 1<<20)
	require.NoError(t, err)
	require.Equal(t, Digest(e.manifest), mod.Digest)
	require.Equal(t, int64(len(wasm)), mod.Layer.Size)
}

func TestParseModuleManifestRefuses(t *testing.T) {
	layer := `{"mediaType":"application/wasm","digest":"sha256:` + strings.Repeat("1", 64) + `","size":10}`
	cfg := `{"mediaType":"application/vnd.wasm.config.v0+json","digest":"sha256:` + strings.Repeat("2", 64) + `","size":2}`
	for _, tc := range []struct{ name, body, err string }{
		{"index", `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[` + layer + `]}`, "image index"},
		{"zstd image layer", `{"schemaVersion":2,"config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:` + strings.Repeat("2", 64) + `","size":2},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+zstd","digest":"sha256:` + strings.Repeat("1", 64) + `","size":1}]}`, `the image (config "application/vnd.oci.image.config.v1+json") has a layer of media type "application/vnd.oci.image.layer.v1.tar+zstd", which holds no module`},
		{"artifact manifest", `{"schemaVersion":2,"mediaType":"application/vnd.oci.artifact.manifest.v1+json","config":` + cfg + `,"layers":[` + layer + `]}`, "manifest media type"},
		{"no layer", `{"schemaVersion":2,"config":` + cfg + `,"layers":[]}`, "0 layers"},
		{"two layers", `{"schemaVersion":2,"config":` + cfg + `,"layers":[` + layer + `,` + layer + `]}`, "2 layers"},
		{"signature layer", `{"schemaVersion":2,"config":` + cfg + `,"layers":[{"mediaType":"application/vnd.dev.cosign.simplesigning.v1+json","digest":"sha256:` + strings.Repeat("1", 64) + `","size":1}]}`, "holds no module"},
		{"tar over the cap", `{"schemaVersion":2,"config":` + cfg + `,"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:` + strings.Repeat("1", 64) + `","size":1048587}]}`, "module size limit is 10"},
		{"bad digest", `{"schemaVersion":2,"config":` + cfg + `,"layers":[{"mediaType":"application/wasm","digest":"md5:abc","size":1}]}`, "digest"},
		{"negative size", `{"schemaVersion":2,"config":` + cfg + `,"layers":[{"mediaType":"application/wasm","digest":"sha256:` + strings.Repeat("1", 64) + `","size":-1}]}`, "negative"},
		{"over the cap", `{"schemaVersion":2,"config":` + cfg + `,"layers":[{"mediaType":"application/wasm","digest":"sha256:` + strings.Repeat("1", 64) + `","size":11}]}`, "module size limit is 10"},
		{"schema 1", `{"schemaVersion":1}`, "schemaVersion is 1"},
		{"not json", `<html>`, "not JSON"},
		{"trailing data", `{"schemaVersion":2,"config":` + cfg + `,"layers":[` + layer + `]} {}`, "after its JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseModuleManifest([]byte(tc.body), 10)
			require.ErrorContains(t, err, tc.err)
		})
	}
}

// FuzzParseModuleManifest: a registry's manifest is untrusted bytes.
func FuzzParseModuleManifest(f *testing.F) {
	e, err := Artifact{Wasm: testWasm(10)}.encode()
	require.NoError(f, err)
	f.Add(e.manifest)
	f.Add([]byte(`{"schemaVersion":2,"manifests":[{}]}`))
	f.Add([]byte(`{"schemaVersion":2,"config":{"mediaType":"application/vnd.wasm.config.v0+json"},"layers":[{"mediaType":"application/wasm","digest":"sha256:","size":1e30}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseModuleManifest(b, 1<<20)
		if err == nil {
			require.LessOrEqual(t, m.Layer.Size, layerLimit(m.Packing, 1<<20))
			p, ok := layerPacking(m.Layer.MediaType)
			require.True(t, ok)
			require.Equal(t, p, m.Packing)
			_, err := ParseDigest(m.Layer.Digest)
			require.NoError(t, err)
		}
		_, _ = bundleManifest(b, "sha256:"+strings.Repeat("0", 64))
		_, _ = bundleReferrers(b)
	})
}
