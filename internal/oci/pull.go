package oci

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// Pulled is a module artifact that is in the store: its manifest, and the
// Sigstore bundles found attached to it.
type Pulled struct {
	Ref      Ref     // pinned: Digest is the manifest's
	Manifest *Module // the manifest, parsed; its Layer is in the store
	Bundles  []string
	// ReferrersErr says why attached bundles could not be listed (the
	// module itself was pulled); nil when the listing worked.
	ReferrersErr error
}

// Pull asks the registry for ref (resolving a tag), stores its manifest,
// its module layer (at most maxLayer bytes, refused before the download if
// the manifest declares more) and the Sigstore bundles attached to it, and
// records the tag's digest for offline use.
func (c *Client) Pull(ctx context.Context, ref Ref, store *Store, maxLayer int64) (*Pulled, error) {
	s, err := c.open(ctx, ref, false)
	if err != nil {
		return nil, err
	}
	accept := strings.Join([]string{MediaTypeManifest, MediaTypeIndex, mediaTypeDockerManifest, mediaTypeDockerList}, ", ")
	top, md, ctype, err := s.readManifest(ctx, ref.identifier(), accept, MaxManifestSize)
	if err != nil {
		return nil, err
	}
	mb := top
	if isIndexType(ctype) || isIndex(top) {
		// A multi-platform image: its wasi/wasm manifest, fetched by the
		// digest the index (itself pinned by md) names.
		d, err := ChooseFromIndex(top)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ref, err)
		}
		if mb, _, _, err = s.readManifest(ctx, d.Digest, MediaTypeManifest+", "+mediaTypeDockerManifest, MaxManifestSize); err != nil {
			return nil, err
		}
	}
	mod, err := ParseModuleManifest(mb, maxLayer)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	if err := s.blob(ctx, mod.Layer, store); err != nil {
		return nil, err
	}
	if mod.Packing != PackRaw {
		// Refuse a tar without exactly one module now, not at load.
		if _, err := store.Module(mod, maxLayer); err != nil {
			return nil, fmt.Errorf("%s: %w", ref, err)
		}
	}
	for _, b := range [][]byte{mb, top} {
		if _, err := store.WriteBytes(b); err != nil {
			return nil, err
		}
	}
	p := &Pulled{Ref: ref.Pinned(md), Manifest: mod}
	p.Bundles, p.ReferrersErr = s.bundles(ctx, md, store)
	sigs, err := s.cosignSigs(ctx, md, store)
	p.Bundles = append(p.Bundles, sigs...)
	if err != nil {
		p.ReferrersErr = errors.Join(p.ReferrersErr, err)
	}
	if err := store.AddReferrers(md, p.Bundles); err != nil {
		return nil, err
	}
	p.Bundles = store.Referrers(md)
	return p, store.SetTag(ref, md)
}

// Local returns ref from the store alone: a pinned ref, or a tag by the
// digest it had at its last pull. It never uses the network. A ref not in
// the store is an error for which IsNotExist holds.
func Local(store *Store, ref Ref, maxLayer int64) (*Pulled, error) {
	d := ref.Digest
	if d == "" {
		var err error
		if d, err = store.Tag(ref); err != nil {
			return nil, err
		}
	}
	mod, err := storedManifest(store, d, maxLayer)
	if err != nil {
		return nil, fmt.Errorf("stored manifest of %s: %w", ref, err)
	}
	if !store.Has(mod.Layer.Digest) {
		return nil, fmt.Errorf("module layer %s of %s: %w", mod.Layer.Digest, ref, errNotStored)
	}
	return &Pulled{Ref: ref.Pinned(d), Manifest: mod, Bundles: store.Referrers(d)}, nil
}

// storedManifest parses manifest d from the store, following an image
// index to its wasi/wasm manifest.
func storedManifest(store *Store, d string, maxLayer int64) (*Module, error) {
	b, err := store.Read(d, MaxManifestSize)
	if err != nil {
		return nil, err
	}
	if isIndex(b) {
		c, err := ChooseFromIndex(b)
		if err != nil {
			return nil, err
		}
		if b, err = store.Read(c.Digest, MaxManifestSize); err != nil {
			return nil, err
		}
	}
	return ParseModuleManifest(b, maxLayer)
}

// isIndex reports whether manifest bytes are an image index.
func isIndex(b []byte) bool {
	var m struct {
		MediaType string            `json:"mediaType"`
		Manifests []json.RawMessage `json:"manifests"`
	}
	return json.Unmarshal(b, &m) == nil && (isIndexType(m.MediaType) || len(m.Manifests) > 0)
}

var errNotStored = fmt.Errorf("not in the store: %w", fs.ErrNotExist)

// bundles lists the Sigstore bundles attached to manifest md (the
// referrers API, else the referrers tag schema), and stores those that
// are well-formed referrers of md.
func (s *session) bundles(ctx context.Context, md string, store *Store) ([]string, error) {
	idx, err := s.referrersIndex(ctx, md)
	if err != nil || idx == nil {
		return nil, err
	}
	descs, err := bundleReferrers(idx)
	if err != nil {
		return nil, err
	}
	var out []string
	var problems []string
	for _, d := range descs {
		b, err := s.bundle(ctx, d, md, store)
		if err != nil {
			problems = append(problems, fmt.Sprintf("referrer %s: %v", ShortDigest(d.Digest), err))
			continue
		}
		out = append(out, b)
	}
	if len(problems) > 0 {
		return out, errors.New(strings.Join(problems, "; "))
	}
	return out, nil
}

// referrersIndex returns the referrers index of md, or nil if there is none.
func (s *session) referrersIndex(ctx context.Context, md string) ([]byte, error) {
	u := s.url("referrers", md) + "?artifactType=" + url.QueryEscape(MediaTypeBundle)
	resp, err := s.get(ctx, u, MediaTypeIndex, MaxIndexSize)
	if err == nil {
		defer resp.Body.Close()
		b, err := readAllLimit(resp.Body, MaxIndexSize)
		if err != nil {
			return nil, fmt.Errorf("referrers of %s: %w", md, err)
		}
		return b, nil
	}
	var te *transport.Error
	if errors.Is(err, ErrUnauthorized) || errors.Is(err, ErrUnreachable) || (errors.As(err, &te) && te.StatusCode >= 500) {
		return nil, err
	}
	// No referrers API (distribution 2.x answers 404): the tag schema.
	b, _, _, err := s.readManifest(ctx, "sha256-"+DigestHex(md), MediaTypeIndex, MaxIndexSize)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	return b, err
}

// MediaTypeCosignSig is the layer media type of a cosign signature in the
// .sig tag layout (cosign 2's default): a simple-signing payload naming
// the manifest digest, the signature in an annotation. It is also the
// mediaType of the CosignSig documents the store keeps for them.
const MediaTypeCosignSig = "application/vnd.dev.cosign.simplesigning.v1+json"

// Annotations of a cosign .sig layer.
const (
	annotationCosignSignature = "dev.cosignproject.cosign/signature"
	annotationCosignCert      = "dev.sigstore.cosign/certificate"
	annotationCosignChain     = "dev.sigstore.cosign/chain"
	annotationCosignBundle    = "dev.sigstore.cosign/bundle"
	maxCosignPayload          = 64 << 10 // a simple-signing payload is a few hundred bytes
)

// CosignSig is one signature of a cosign .sig tag, gathered into one
// document that travels with the Sigstore bundles (the verifier tells
// them apart by MediaType): the payload it signs and the layer's
// annotations, uninterpreted.
type CosignSig struct {
	MediaType   string `json:"mediaType"` // MediaTypeCosignSig
	Payload     []byte `json:"payload"`   // the simple-signing JSON, as signed
	Signature   string `json:"signature"` // base64, as in the annotation
	Certificate string `json:"certificate,omitempty"`
	Chain       string `json:"chain,omitempty"`
	RekorBundle string `json:"rekorBundle,omitempty"`
}

// cosignSigs fetches the signatures of the cosign .sig tag of md, if it
// has one, stores each as a CosignSig document (at most MaxBundles) and
// returns their digests.
func (s *session) cosignSigs(ctx context.Context, md string, store *Store) ([]string, error) {
	b, _, _, err := s.readManifest(ctx, "sha256-"+DigestHex(md)+".sig", MediaTypeManifest+", "+mediaTypeDockerManifest, MaxManifestSize)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cosign .sig tag: %w", err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("cosign .sig tag: not JSON: %v", err)
	}
	var out []string
	for _, l := range m.Layers[:min(len(m.Layers), MaxBundles)] {
		if l.MediaType != MediaTypeCosignSig || l.Annotations[annotationCosignSignature] == "" {
			continue
		}
		if _, err := ParseDigest(l.Digest); err != nil || l.Size < 0 || l.Size > maxCosignPayload {
			return out, fmt.Errorf("cosign .sig tag: a payload of %d bytes (at most %d are read) or a bad digest", l.Size, maxCosignPayload)
		}
		if err := s.blob(ctx, l, store); err != nil {
			return out, fmt.Errorf("cosign .sig payload: %w", err)
		}
		payload, err := store.Read(l.Digest, maxCosignPayload)
		if err != nil {
			return out, err
		}
		doc, err := json.Marshal(CosignSig{MediaType: MediaTypeCosignSig, Payload: payload,
			Signature: l.Annotations[annotationCosignSignature], Certificate: l.Annotations[annotationCosignCert],
			Chain: l.Annotations[annotationCosignChain], RekorBundle: l.Annotations[annotationCosignBundle]})
		if err != nil {
			return out, err
		}
		d, err := store.WriteBytes(doc)
		if err != nil {
			return out, err
		}
		out = append(out, d)
	}
	return out, nil
}

// bundle fetches one bundle referrer of md into the store.
func (s *session) bundle(ctx context.Context, d Descriptor, md string, store *Store) (string, error) {
	mb, _, _, err := s.readManifest(ctx, d.Digest, MediaTypeManifest, MaxManifestSize)
	if err != nil {
		return "", err
	}
	layer, err := bundleManifest(mb, md)
	if err != nil {
		return "", err
	}
	if err := s.blob(ctx, layer, store); err != nil {
		return "", err
	}
	return layer.Digest, nil
}

// Push publishes a as ref (its tag, or its digest if it has none) and
// returns ref pinned to the manifest's digest.
func (c *Client) Push(ctx context.Context, ref Ref, a Artifact) (Ref, error) {
	e, err := a.encode()
	if err != nil {
		return Ref{}, err
	}
	s, err := c.open(ctx, ref, true)
	if err != nil {
		return Ref{}, err
	}
	if err := s.putBlob(ctx, e.config, MediaTypeWasmConfig); err != nil {
		return Ref{}, err
	}
	if err := s.putBlob(ctx, e.layer, MediaTypeWasm); err != nil {
		return Ref{}, err
	}
	d := Digest(e.manifest)
	if ref.Digest != "" && ref.Digest != d {
		return Ref{}, fmt.Errorf("%w: the artifact's manifest is %s, the reference names %s: drop the @digest to push", ErrDigest, d, ref.Digest)
	}
	id := ref.Tag
	if id == "" {
		id = d
	}
	if _, err := s.putManifest(ctx, id, e.manifest, MediaTypeManifest); err != nil {
		return Ref{}, err
	}
	return ref.Pinned(d), nil
}

// AttachBundle attaches a Sigstore bundle to the manifest ref pins, the
// way cosign does (its specs/BUNDLE_SPEC.md): a manifest of artifact type
// application/vnd.dev.sigstore.bundle.v0.3+json whose subject is ref, and,
// on a registry without the referrers API, an entry in the sha256-HEX
// index. It returns the digest of the bundle manifest.
func (c *Client) AttachBundle(ctx context.Context, ref Ref, bundle []byte) (string, error) {
	if ref.Digest == "" {
		return "", fmt.Errorf("attach a bundle to %s: pin the reference to a digest", ref)
	}
	s, err := c.open(ctx, ref, true)
	if err != nil {
		return "", err
	}
	subject, _, ctype, err := s.readManifest(ctx, ref.Digest, MediaTypeManifest, MaxManifestSize)
	if err != nil {
		return "", err
	}
	empty := []byte("{}")
	for _, blob := range []struct {
		b  []byte
		mt string
	}{{bundle, MediaTypeBundle}, {empty, MediaTypeEmpty}} {
		if err := s.putBlob(ctx, blob.b, blob.mt); err != nil {
			return "", err
		}
	}
	content := "message-signature"
	var probe map[string]json.RawMessage
	if json.Unmarshal(bundle, &probe) == nil && probe["dsseEnvelope"] != nil {
		content = "dsse-envelope"
	}
	ann := map[string]string{"dev.sigstore.bundle.content": content, AnnotationCreated: time.Now().UTC().Format(time.RFC3339Nano)}
	if content == "dsse-envelope" {
		ann["dev.sigstore.bundle.predicateType"] = CosignSignPredicate
	}
	bd := Digest(bundle)
	m, err := json.Marshal(manifest{SchemaVersion: 2, MediaType: MediaTypeManifest, ArtifactType: MediaTypeBundle,
		Config: Descriptor{MediaType: MediaTypeEmpty, Digest: Digest(empty), Size: int64(len(empty))},
		Layers: []Descriptor{{MediaType: MediaTypeBundle, Digest: bd, Size: int64(len(bundle)),
			Annotations: map[string]string{AnnotationTitle: "sha256-" + DigestHex(bd) + ".sigstore.json"}}},
		Subject:     &Descriptor{MediaType: orManifest(ctype), Digest: ref.Digest, Size: int64(len(subject))},
		Annotations: ann})
	if err != nil {
		return "", err
	}
	md := Digest(m)
	h, err := s.putManifest(ctx, md, m, MediaTypeManifest)
	if err != nil {
		return "", err
	}
	if h.Get("OCI-Subject") == ref.Digest {
		return md, nil // the registry indexes referrers itself
	}
	return md, s.addFallbackReferrer(ctx, ref.Digest, Descriptor{MediaType: MediaTypeManifest, ArtifactType: MediaTypeBundle,
		Digest: md, Size: int64(len(m)), Annotations: ann})
}

// CosignSignPredicate is the in-toto predicate type of a cosign signature
// in a DSSE bundle (as opposed to an attestation about the artifact).
const CosignSignPredicate = "https://sigstore.dev/cosign/sign/v1"

func orManifest(ctype string) string {
	if ctype == "" || strings.Contains(ctype, ",") {
		return MediaTypeManifest
	}
	return ctype
}

// addFallbackReferrer adds d to the referrers tag schema index of subject.
func (s *session) addFallbackReferrer(ctx context.Context, subject string, d Descriptor) error {
	tag := "sha256-" + DigestHex(subject)
	// Its own type: an index has no config or layers (distribution refuses
	// an index that carries them).
	var idx struct {
		SchemaVersion int          `json:"schemaVersion"`
		MediaType     string       `json:"mediaType"`
		Manifests     []Descriptor `json:"manifests"`
	}
	idx.SchemaVersion, idx.MediaType = 2, MediaTypeIndex
	b, _, _, err := s.readManifest(ctx, tag, MediaTypeIndex, MaxIndexSize)
	switch {
	case err == nil:
		if err := json.Unmarshal(b, &idx); err != nil {
			return fmt.Errorf("referrers index %s: %w", tag, err)
		}
	case !errors.Is(err, ErrNotFound):
		return err
	}
	idx.Manifests = append(idx.Manifests, d)
	nb, err := json.Marshal(idx)
	if err != nil {
		return err
	}
	_, err = s.putManifest(ctx, tag, nb, MediaTypeIndex)
	return err
}

func readAllLimit(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: over %d bytes", ErrTooLarge, limit)
	}
	return b, nil
}
