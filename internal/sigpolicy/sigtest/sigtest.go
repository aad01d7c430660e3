// Package sigtest makes real Sigstore signatures for tests: bundles signed
// with a local key (as cosign sign --key and sign-blob --key make them),
// and keyless bundles from sigstore-go's virtual Sigstore (a Fulcio CA, a
// Rekor log and a timestamp authority in memory) with the trusted root
// that verifies them written to a file, as an operator would supply it.
// Nothing here is imported outside tests.
package sigtest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"github.com/stretchr/testify/require"
)

// CosignSignPredicate is cosign's signature statement type.
const CosignSignPredicate = "https://sigstore.dev/cosign/sign/v1"

// Statement returns the in-toto statement cosign signs for an image
// digest ("sha256:<hex>"), with the given predicate type.
func Statement(digest, predicateType string) []byte {
	hexPart := digest[len("sha256:"):]
	b, _ := json.Marshal(map[string]any{
		"_type":         "https://in-toto.io/Statement/v1",
		"subject":       []any{map[string]any{"name": "module", "digest": map[string]string{"sha256": hexPart}}},
		"predicateType": predicateType,
		"predicate":     map[string]any{},
	})
	return b
}

// Key is a signing key pair; its public half is PubFile (PEM).
type Key struct {
	kp      *sign.EphemeralKeypair
	PubFile string
}

// NewKey makes a key pair and writes the public key to dir/name.
func NewKey(t testing.TB, dir, name string) *Key {
	t.Helper()
	kp, err := sign.NewEphemeralKeypair(nil)
	require.NoError(t, err)
	pem, err := kp.GetPublicKeyPem()
	require.NoError(t, err)
	k := &Key{kp: kp, PubFile: filepath.Join(dir, name)}
	require.NoError(t, os.WriteFile(k.PubFile, []byte(pem), 0o644))
	return k
}

// SignBlob returns a message-signature bundle over data (cosign sign-blob
// --key --bundle).
func (k *Key) SignBlob(t testing.TB, data []byte) []byte {
	t.Helper()
	pb, err := sign.Bundle(&sign.PlainData{Data: data}, k.kp, sign.BundleOptions{})
	require.NoError(t, err)
	return marshal(t, pb)
}

// SignDigest returns a DSSE bundle of the statement about digest with
// predicateType (cosign sign --key signs CosignSignPredicate).
func (k *Key) SignDigest(t testing.TB, digest, predicateType string) []byte {
	t.Helper()
	pb, err := sign.Bundle(&sign.DSSEData{Data: Statement(digest, predicateType), PayloadType: "application/vnd.in-toto+json"}, k.kp, sign.BundleOptions{})
	require.NoError(t, err)
	return marshal(t, pb)
}

// SignLegacyBlob returns what cosign 2's sign-blob --key --bundle
// --tlog-upload=false writes: its own JSON, the ECDSA signature of data
// in base64Signature.
func (k *Key) SignLegacyBlob(t testing.TB, data []byte) []byte {
	t.Helper()
	sig, _, err := k.kp.SignData(t.Context(), data)
	require.NoError(t, err)
	b, err := json.Marshal(map[string]string{"base64Signature": base64.StdEncoding.EncodeToString(sig)})
	require.NoError(t, err)
	return b
}

// SimpleSigning returns the payload cosign 2 signs for an image digest
// in the .sig tag layout.
func SimpleSigning(ref, digest string) []byte {
	b, _ := json.Marshal(map[string]any{"critical": map[string]any{
		"identity": map[string]string{"docker-reference": ref},
		"image":    map[string]string{"docker-manifest-digest": digest},
		"type":     "cosign container image signature"}, "optional": nil})
	return b
}

// SignPayload returns the base64 signature of payload, as the
// dev.cosignproject.cosign/signature annotation of a .sig layer holds it.
func (k *Key) SignPayload(t testing.TB, payload []byte) string {
	t.Helper()
	sig, _, err := k.kp.SignData(t.Context(), payload)
	require.NoError(t, err)
	return base64.StdEncoding.EncodeToString(sig)
}

func marshal(t testing.TB, pb *protobundle.Bundle) []byte {
	t.Helper()
	b, err := (&bundle.Bundle{Bundle: pb}).MarshalJSON()
	require.NoError(t, err)
	return b
}

// Keyless is a virtual Sigstore; RootFile is its trusted root.
type Keyless struct {
	vs       *ca.VirtualSigstore
	RootFile string
}

// NewKeyless starts a virtual Sigstore and writes its trusted root (its
// CA, timestamp authority and Rekor key; no CT log, as the virtual CA
// issues certificates without SCTs) to dir/trusted_root.json.
func NewKeyless(t testing.TB, dir string) *Keyless {
	t.Helper()
	vs, err := ca.NewVirtualSigstore()
	require.NoError(t, err)
	// The virtual Rekor names its log by the hex of its key ID; a trusted
	// root file carries the raw key ID.
	logs := map[string]*root.TransparencyLog{}
	for id, l := range vs.RekorLogs() {
		raw, err := hex.DecodeString(id)
		require.NoError(t, err)
		c := *l
		c.ID = raw
		logs[id] = &c
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, vs.FulcioCertificateAuthorities(), nil, vs.TimestampingAuthorities(), logs)
	require.NoError(t, err)
	b, err := tr.MarshalJSON()
	require.NoError(t, err)
	k := &Keyless{vs: vs, RootFile: filepath.Join(dir, "trusted_root.json")}
	require.NoError(t, os.WriteFile(k.RootFile, b, 0o644))
	return k
}

// signedAt is when the virtual Sigstore logs a signature by default: its
// certificates are valid from now for ten minutes.
func signedAt() time.Time { return time.Now().Add(5 * time.Minute) }

// SignBlob returns a keyless message-signature bundle over data by
// identity (cosign sign-blob --bundle).
func (k *Keyless) SignBlob(t testing.TB, identity, issuer string, data []byte) []byte {
	return k.SignBlobAt(t, identity, issuer, data, signedAt())
}

// SignBlobAt is SignBlob with the log's integrated time set to at.
func (k *Keyless) SignBlobAt(t testing.TB, identity, issuer string, data []byte, at time.Time) []byte {
	t.Helper()
	e, err := k.vs.SignAtTime(identity, issuer, data, at)
	require.NoError(t, err)
	sc, err := e.SignatureContent()
	require.NoError(t, err)
	ms := sc.(*bundle.MessageSignature)
	pb := k.bundle(t, e, true)
	pb.Content = &protobundle.Bundle_MessageSignature{MessageSignature: &protocommon.MessageSignature{
		MessageDigest: &protocommon.HashOutput{Algorithm: protocommon.HashAlgorithm_SHA2_256, Digest: ms.Digest()},
		Signature:     ms.Signature(),
	}}
	return marshal(t, pb)
}

// SignDigest returns a keyless DSSE bundle of the statement about digest
// with predicateType, by identity (cosign sign).
func (k *Keyless) SignDigest(t testing.TB, identity, issuer, digest, predicateType string) []byte {
	return k.SignDigestAt(t, identity, issuer, digest, predicateType, signedAt())
}

// SignDigestAt is SignDigest with the log's integrated time set to at.
func (k *Keyless) SignDigestAt(t testing.TB, identity, issuer, digest, predicateType string, at time.Time) []byte {
	t.Helper()
	e, err := k.vs.AttestAtTime(identity, issuer, Statement(digest, predicateType), at, true)
	require.NoError(t, err)
	sc, err := e.SignatureContent()
	require.NoError(t, err)
	env := sc.(*bundle.Envelope).RawEnvelope()
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	require.NoError(t, err)
	d := &protodsse.Envelope{Payload: payload, PayloadType: env.PayloadType}
	for _, s := range env.Signatures {
		sig, err := base64.StdEncoding.DecodeString(s.Sig)
		require.NoError(t, err)
		d.Signatures = append(d.Signatures, &protodsse.Signature{Sig: sig, Keyid: s.KeyID})
	}
	pb := k.bundle(t, e, false)
	pb.Content = &protobundle.Bundle_DsseEnvelope{DsseEnvelope: d}
	return marshal(t, pb)
}

// bundle lays out the verification material of a virtual Sigstore
// signature as a v0.3 bundle: the leaf certificate, the Rekor entry with
// its inclusion proof and signed entry timestamp, the RFC 3161 timestamp.
func (k *Keyless) bundle(t testing.TB, e *ca.TestEntity, addProof bool) *protobundle.Bundle {
	t.Helper()
	vc, err := e.VerificationContent()
	require.NoError(t, err)
	entries, err := e.TlogEntries()
	require.NoError(t, err)
	stamps, err := e.Timestamps()
	require.NoError(t, err)
	vm := &protobundle.VerificationMaterial{
		Content: &protobundle.VerificationMaterial_Certificate{Certificate: &protocommon.X509Certificate{RawBytes: vc.Certificate().Raw}},
	}
	for _, entry := range entries {
		vm.TlogEntries = append(vm.TlogEntries, k.logEntry(t, entry, addProof))
	}
	ts := &protobundle.TimestampVerificationData{}
	for _, s := range stamps {
		ts.Rfc3161Timestamps = append(ts.Rfc3161Timestamps, &protocommon.RFC3161SignedTimestamp{SignedTimestamp: s})
	}
	vm.TimestampVerificationData = ts
	return &protobundle.Bundle{MediaType: "application/vnd.dev.sigstore.bundle.v0.3+json", VerificationMaterial: vm}
}

// logEntry completes a virtual Rekor entry as Rekor returns one: kind and
// version, an inclusion proof (made here for hashedrekord entries, which
// the virtual log makes without), and the signed entry timestamp over the
// entry as it ends up.
func (k *Keyless) logEntry(t testing.TB, entry *tlog.Entry, addProof bool) *protorekor.TransparencyLogEntry {
	t.Helper()
	tle := entry.TransparencyLogEntry()
	var body struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	require.NoError(t, json.Unmarshal(tle.CanonicalizedBody, &body))
	tle.KindVersion = &protorekor.KindVersion{Kind: body.Kind, Version: body.APIVersion}
	if addProof {
		p, err := k.vs.GetInclusionProof(tle.CanonicalizedBody)
		require.NoError(t, err)
		root, err := hex.DecodeString(*p.RootHash)
		require.NoError(t, err)
		tle.LogIndex = *p.LogIndex
		tle.InclusionProof = &protorekor.InclusionProof{LogIndex: *p.LogIndex, RootHash: root, TreeSize: *p.TreeSize, Checkpoint: &protorekor.Checkpoint{Envelope: *p.Checkpoint}}
		for _, h := range p.Hashes {
			b, err := hex.DecodeString(h)
			require.NoError(t, err)
			tle.InclusionProof.Hashes = append(tle.InclusionProof.Hashes, b)
		}
	}
	set, err := k.vs.RekorSignPayload(tlog.RekorPayload{
		Body:           base64.StdEncoding.EncodeToString(tle.CanonicalizedBody),
		IntegratedTime: tle.IntegratedTime,
		LogIndex:       tle.LogIndex,
		LogID:          hex.EncodeToString(tle.LogId.KeyId),
	})
	require.NoError(t, err)
	tle.InclusionPromise = &protorekor.InclusionPromise{SignedEntryTimestamp: set}
	return tle
}

// Digest is "sha256:<hex>" of b.
func Digest(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// legacyKeyless signs data keyless as cosign 2 did before the Sigstore
// bundle: the signature, the leaf certificate as PEM, and the Rekor entry
// as cosign's own "rekorBundle" JSON (a signed entry timestamp over the
// body, integrated time, index and log ID; no inclusion proof).
func (k *Keyless) legacyKeyless(t testing.TB, identity, issuer string, data []byte) (sig []byte, certPEM string, rekorBundle []byte) {
	t.Helper()
	e, err := k.vs.SignAtTime(identity, issuer, data, signedAt())
	require.NoError(t, err)
	sc, err := e.SignatureContent()
	require.NoError(t, err)
	vc, err := e.VerificationContent()
	require.NoError(t, err)
	entries, err := e.TlogEntries()
	require.NoError(t, err)
	require.Len(t, entries, 1)
	tle := k.logEntry(t, entries[0], false)
	rb, err := json.Marshal(map[string]any{
		"SignedEntryTimestamp": tle.InclusionPromise.SignedEntryTimestamp,
		"Payload": map[string]any{
			"body":           base64.StdEncoding.EncodeToString(tle.CanonicalizedBody),
			"integratedTime": tle.IntegratedTime,
			"logIndex":       tle.LogIndex,
			"logID":          hex.EncodeToString(tle.LogId.KeyId),
		}})
	require.NoError(t, err)
	pemCert := "-----BEGIN CERTIFICATE-----\n" + base64.StdEncoding.EncodeToString(vc.Certificate().Raw) + "\n-----END CERTIFICATE-----\n"
	return sc.(*bundle.MessageSignature).Signature(), pemCert, rb
}

// SignLegacyBlob returns what cosign 2's keyless sign-blob --bundle
// writes: its own JSON (cosign's LocalSignedPayload) with the signature,
// the certificate and the Rekor entry.
func (k *Keyless) SignLegacyBlob(t testing.TB, identity, issuer string, data []byte) []byte {
	t.Helper()
	sig, cert, rb := k.legacyKeyless(t, identity, issuer, data)
	b, err := json.Marshal(map[string]any{"base64Signature": base64.StdEncoding.EncodeToString(sig),
		"cert": base64.StdEncoding.EncodeToString([]byte(cert)), "rekorBundle": json.RawMessage(rb)})
	require.NoError(t, err)
	return b
}

// SignLegacySigTag returns a keyless signature of payload (a simple-signing
// payload) in cosign 2's .sig tag layout, as the puller gathers it into
// one document (oci.CosignSig): the payload, and the layer's signature,
// certificate and bundle annotations.
func (k *Keyless) SignLegacySigTag(t testing.TB, identity, issuer string, payload []byte) []byte {
	t.Helper()
	sig, cert, rb := k.legacyKeyless(t, identity, issuer, payload)
	b, err := json.Marshal(map[string]any{"mediaType": "application/vnd.dev.cosign.simplesigning.v1+json",
		"payload": payload, "signature": base64.StdEncoding.EncodeToString(sig), "certificate": cert, "rekorBundle": string(rb)})
	require.NoError(t, err)
	return b
}

// SigTagAnnotations returns the annotations cosign 2 puts on a keyless
// .sig layer signing payload: the signature, the certificate and the
// Rekor bundle.
func (k *Keyless) SigTagAnnotations(t testing.TB, identity, issuer string, payload []byte) map[string]string {
	t.Helper()
	sig, cert, rb := k.legacyKeyless(t, identity, issuer, payload)
	return map[string]string{"dev.cosignproject.cosign/signature": base64.StdEncoding.EncodeToString(sig),
		"dev.sigstore.cosign/certificate": cert, "dev.sigstore.cosign/bundle": string(rb)}
}
