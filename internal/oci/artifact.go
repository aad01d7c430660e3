package oci

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"
)

// Media types of the CNCF TAG-Runtime Wasm OCI artifact
// (https://tag-runtime.cncf.io/wgs/wasm/deliverables/wasm-oci-artifact/),
// as wkg, ORAS users and wassette write and read them, and of the cosign
// bundle referrer (cosign's specs/BUNDLE_SPEC.md).
const (
	MediaTypeManifest   = "application/vnd.oci.image.manifest.v1+json"
	MediaTypeIndex      = "application/vnd.oci.image.index.v1+json"
	MediaTypeWasmConfig = "application/vnd.wasm.config.v0+json"
	MediaTypeWasm       = "application/wasm"
	MediaTypeBundle     = "application/vnd.dev.sigstore.bundle.v0.3+json"
	MediaTypeEmpty      = "application/vnd.oci.empty.v1+json"

	// Docker's, accepted on the wire only to say what they are: a
	// registry asked for OCI types alone may convert a Docker image to a
	// schema 1 manifest instead.
	mediaTypeDockerManifest = "application/vnd.docker.distribution.manifest.v2+json"
	mediaTypeDockerList     = "application/vnd.docker.distribution.manifest.list.v2+json"
)

// Annotation keys push writes on the manifest. The org.opencontainers ones
// are the OCI pre-defined keys; the others describe the provider so that a
// registry UI or `oras manifest fetch` shows what it is and what it asks
// for. They are informational: the module's own describe, read at load,
// is what the host acts on.
const (
	AnnotationTitle       = "org.opencontainers.image.title" // on the layer: the file name (wkg, oras pull)
	AnnotationVersion     = "org.opencontainers.image.version"
	AnnotationCreated     = "org.opencontainers.image.created"
	AnnotationDescription = "org.opencontainers.image.description"
	AnnotationProvider    = "io.github.mcp-wasm.provider.name"
	AnnotationURISpace    = "io.github.mcp-wasm.provider.uri-space" // space-separated URI roots
	AnnotationRequests    = "io.github.mcp-wasm.provider.requests"  // the describe's requests, JSON
	AnnotationABI         = "io.github.mcp-wasm.abi"                // "mcpw_v1"
)

// Limits on what is read from a registry or the store before it is parsed.
const (
	MaxManifestSize = 256 << 10 // a module manifest is well under 2 KiB
	MaxIndexSize    = 1 << 20   // a referrers index
	MaxBundleSize   = 1 << 20   // a Sigstore bundle is a few KiB
	MaxBundles      = 16        // bundles looked at per module
)

// Errors a caller may want to tell apart. Each is wrapped with the details
// and the fix.
var (
	// ErrNotModule: the manifest is not a Wasm module artifact.
	ErrNotModule = errors.New("not a Wasm module artifact")
	// ErrTooLarge: a declared or actual size is over the cap.
	ErrTooLarge = errors.New("too large")
	// ErrDigest: bytes do not hash to the digest that names them.
	ErrDigest = errors.New("digest mismatch")
)

// WasmConfig is the config blob of the artifact: the fields the TAG-Runtime
// layout defines for a core module (os wasip1, no component section).
type WasmConfig struct {
	Created      string   `json:"created"`
	Author       string   `json:"author,omitempty"`
	Architecture string   `json:"architecture"`
	OS           string   `json:"os"`
	LayerDigests []string `json:"layerDigests"`
}

// Descriptor is an OCI content descriptor.
type Descriptor struct {
	MediaType    string            `json:"mediaType"`
	ArtifactType string            `json:"artifactType,omitempty"`
	Digest       string            `json:"digest"`
	Size         int64             `json:"size"`
	Annotations  map[string]string `json:"annotations,omitempty"`
}

// manifest is an OCI image manifest (and, with Manifests set, what an
// index looks like when it arrives where a manifest was expected).
type manifest struct {
	SchemaVersion int               `json:"schemaVersion"`
	MediaType     string            `json:"mediaType,omitempty"`
	ArtifactType  string            `json:"artifactType,omitempty"`
	Config        Descriptor        `json:"config"`
	Layers        []Descriptor      `json:"layers"`
	Subject       *Descriptor       `json:"subject,omitempty"`
	Annotations   map[string]string `json:"annotations,omitempty"`
	Manifests     []Descriptor      `json:"manifests,omitempty"`
}

// Artifact is a module ready to push.
type Artifact struct {
	Wasm        []byte
	FileName    string            // the layer's title; "module.wasm" if empty
	Annotations map[string]string // manifest annotations
	Created     time.Time         // the config's and the created annotation's time
}

// encoded is an artifact as blobs: config, layer, and the manifest naming them.
type encoded struct {
	config, layer, manifest []byte
	layerDesc, configDesc   Descriptor
}

// encode lays out a as the Wasm OCI artifact.
func (a Artifact) encode() (*encoded, error) {
	layerDigest := Digest(a.Wasm)
	created := a.Created.UTC().Format(time.RFC3339)
	cfg, err := json.Marshal(WasmConfig{Created: created, Architecture: "wasm", OS: "wasip1", LayerDigests: []string{layerDigest}})
	if err != nil {
		return nil, err
	}
	title := a.FileName
	if title == "" {
		title = "module.wasm"
	}
	e := &encoded{config: cfg, layer: a.Wasm}
	e.configDesc = Descriptor{MediaType: MediaTypeWasmConfig, Digest: Digest(cfg), Size: int64(len(cfg))}
	e.layerDesc = Descriptor{MediaType: MediaTypeWasm, Digest: layerDigest, Size: int64(len(a.Wasm)),
		Annotations: map[string]string{AnnotationTitle: title}}
	ann := map[string]string{AnnotationCreated: created}
	for k, v := range a.Annotations {
		ann[k] = v
	}
	e.manifest, err = json.Marshal(manifest{SchemaVersion: 2, MediaType: MediaTypeManifest,
		Config: e.configDesc, Layers: []Descriptor{e.layerDesc}, Annotations: ann})
	return e, err
}

// Module is a parsed module manifest: the one layer holding the module,
// how it holds it, and the manifest's annotations.
type Module struct {
	Digest      string // of the manifest
	Layer       Descriptor
	Packing     Packing // the module is the layer, or a file in it (a tar)
	Annotations map[string]string
}

// ParseModuleManifest checks that b is the manifest of an image or
// artifact holding exactly one Wasm module, whose layer is at most
// maxLayer bytes (TarOverhead more for a tar layer), and returns its
// layer. It accepts the TAG-Runtime Wasm artifact, an ORAS artifact
// (empty config, artifactType), a module under the other Wasm layer media
// types, and a single-layer container image (OCI or Docker) whose layer
// is a tar; the module in a tar is found by ExtractModule. It refuses,
// saying what it found: an index, a manifest with no or several layers, a
// layer of another media type.
func ParseModuleManifest(b []byte, maxLayer int64) (*Module, error) {
	var m manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%w: manifest is not JSON an OCI manifest can be: %v", ErrNotModule, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: manifest has data after its JSON object", ErrNotModule)
	}
	what := describeManifest(m)
	switch {
	case isIndexType(m.MediaType) || len(m.Manifests) > 0:
		return nil, fmt.Errorf("%w: it is an image index where a manifest was expected: %s", ErrNotModule, PublishHint)
	case m.SchemaVersion != 2:
		return nil, fmt.Errorf("%w: manifest schemaVersion is %d, want 2", ErrNotModule, m.SchemaVersion)
	case !isManifestType(m.MediaType):
		return nil, fmt.Errorf("%w: manifest media type is %q: %s", ErrNotModule, clip(m.MediaType), PublishHint)
	case len(m.Layers) != 1:
		return nil, fmt.Errorf("%w: %s has %d layers, and a module sits in exactly one: %s", ErrNotModule, what, len(m.Layers), PublishHint)
	}
	l := m.Layers[0]
	packing, ok := layerPacking(l.MediaType)
	if !ok {
		return nil, fmt.Errorf("%w: %s has a layer of media type %q, which holds no module (want %s, or a tar with one .wasm file): %s", ErrNotModule, what, clip(l.MediaType), MediaTypeWasm, PublishHint)
	}
	if _, err := ParseDigest(l.Digest); err != nil {
		return nil, fmt.Errorf("%w: layer %v", ErrNotModule, err)
	}
	if l.Size < 0 {
		return nil, fmt.Errorf("%w: layer size %d is negative", ErrNotModule, l.Size)
	}
	if limit := layerLimit(packing, maxLayer); l.Size > limit {
		return nil, fmt.Errorf("%w: the module layer is %d bytes, the module size limit is %d: raise the limit (--max-module-size, limits.moduleSize) if you trust this module", ErrTooLarge, l.Size, maxLayer)
	}
	return &Module{Digest: Digest(b), Layer: l, Packing: packing, Annotations: m.Annotations}, nil
}

// layerLimit is the largest layer that may hold a module of maxWasm bytes.
func layerLimit(p Packing, maxWasm int64) int64 {
	if p == PackTar {
		return maxWasm + TarOverhead
	}
	return maxWasm
}

// describeManifest names a manifest's kind for messages.
func describeManifest(m manifest) string {
	switch {
	case m.Config.MediaType == MediaTypeWasmConfig:
		return "the Wasm artifact"
	case m.ArtifactType != "":
		return fmt.Sprintf("the artifact of type %q", clip(m.ArtifactType))
	case m.Config.MediaType == MediaTypeEmpty:
		return "the artifact"
	}
	return fmt.Sprintf("the image (config %q)", clip(m.Config.MediaType))
}

// clip shortens a registry's string for a message.
func clip(s string) string {
	if len(s) > 100 {
		return s[:100] + "..."
	}
	return s
}

// bundleManifest checks that b is a cosign bundle referrer of subject and
// returns its bundle layer.
func bundleManifest(b []byte, subject string) (Descriptor, error) {
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return Descriptor{}, fmt.Errorf("bundle manifest is not JSON: %v", err)
	}
	switch {
	case m.ArtifactType != MediaTypeBundle:
		return Descriptor{}, fmt.Errorf("artifact type is %q, not a Sigstore bundle", m.ArtifactType)
	case m.Subject == nil || m.Subject.Digest != subject:
		return Descriptor{}, fmt.Errorf("its subject is not %s", subject)
	case len(m.Layers) != 1 || m.Layers[0].MediaType != MediaTypeBundle:
		return Descriptor{}, fmt.Errorf("it does not have exactly one %s layer", MediaTypeBundle)
	}
	l := m.Layers[0]
	if _, err := ParseDigest(l.Digest); err != nil {
		return Descriptor{}, err
	}
	if l.Size < 0 || l.Size > MaxBundleSize {
		return Descriptor{}, fmt.Errorf("%w: bundle is %d bytes, at most %d are read", ErrTooLarge, l.Size, MaxBundleSize)
	}
	return l, nil
}

// bundleReferrers picks the Sigstore bundle manifests of a referrers
// index, newest first by the created annotation, at most MaxBundles.
func bundleReferrers(b []byte) ([]Descriptor, error) {
	var idx manifest
	if err := json.Unmarshal(b, &idx); err != nil {
		return nil, fmt.Errorf("referrers index is not JSON: %v", err)
	}
	var out []Descriptor
	for _, d := range idx.Manifests {
		// Some registries (go-containerregistry's own) report the config's
		// media type instead of the manifest's artifactType: the empty
		// config of a bundle. bundleManifest checks the manifest itself.
		if (d.ArtifactType == MediaTypeBundle || d.ArtifactType == MediaTypeEmpty) && d.MediaType == MediaTypeManifest {
			if _, err := ParseDigest(d.Digest); err == nil && d.Size >= 0 && d.Size <= MaxManifestSize {
				out = append(out, d)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].Annotations[AnnotationCreated] > out[j].Annotations[AnnotationCreated]
	})
	return out[:min(len(out), MaxBundles)], nil
}
