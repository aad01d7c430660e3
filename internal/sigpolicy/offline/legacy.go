package offline

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/verify"

	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy"
)

// cosign 2's formats from before the Sigstore bundle: the .sig tag (the
// puller gathers each signature into a document of this media type, see
// oci.CosignSig) and sign-blob --bundle's own JSON (cosign's
// LocalSignedPayload). A key signature in either is verified by
// sigstore-go as the message signature it is. A certificate (keyless)
// one carries its Rekor entry in cosign's own form (rekorBundle: the
// entry's body, integrated time, index, log ID and signed entry
// timestamp); it is laid out as the v0.1 Sigstore bundle that holds
// exactly those (an inclusion promise, no inclusion proof) and verified
// as any keyless bundle is: certificate chain to the trusted root, the
// signed entry timestamp by the root's Rekor key, the entry naming this
// signature, certificate and artifact, the identity against the policy.
// One without a Rekor entry cannot be checked offline and is refused
// with the flag that re-signs it as a bundle.
const mediaTypeCosignSig = "application/vnd.dev.cosign.simplesigning.v1+json"

// legacy is a signature in one of cosign 2's older formats.
type legacy struct {
	sigTag    bool   // the .sig tag; else a sign-blob --bundle file
	payload   []byte // the .sig tag's simple-signing payload, as signed
	signature []byte
	cert      string // PEM, for a keyless signature
	rekor     []byte // cosign's rekorBundle JSON, for a keyless signature
}

// parseLegacy reads raw as one of cosign 2's older formats; ok is false
// when it is neither (a Sigstore bundle, or garbage).
func parseLegacy(raw []byte) (l legacy, ok bool, err error) {
	var doc struct {
		MediaType       *string `json:"mediaType"`
		Payload         []byte  `json:"payload"`
		Signature       string  `json:"signature"`
		Certificate     string  `json:"certificate"`
		Base64Signature *string `json:"base64Signature"`
		Cert            string  `json:"cert"` // base64 of the PEM
		// an object in a sign-blob --bundle file, a string holding it
		// in a .sig tag document (the layer annotation, uninterpreted)
		RekorBundle json.RawMessage `json:"rekorBundle"`
	}
	if json.Unmarshal(raw, &doc) != nil {
		return l, false, nil
	}
	switch {
	case doc.MediaType != nil && *doc.MediaType == mediaTypeCosignSig:
		l = legacy{sigTag: true, payload: doc.Payload, cert: doc.Certificate}
		l.signature, err = base64.StdEncoding.DecodeString(doc.Signature)
	case doc.MediaType == nil && doc.Base64Signature != nil:
		l.signature, err = base64.StdEncoding.DecodeString(*doc.Base64Signature)
		if err == nil && doc.Cert != "" {
			var pemCert []byte
			pemCert, err = base64.StdEncoding.DecodeString(doc.Cert)
			l.cert = string(pemCert)
		}
	default:
		return l, false, nil
	}
	if err == nil {
		l.rekor, err = rekorJSON(doc.RekorBundle)
	}
	if err != nil {
		return l, true, fmt.Errorf("malformed %s: %v", l.format(), err)
	}
	return l, true, nil
}

// rekorJSON returns cosign's rekorBundle as JSON: raw itself, or the JSON
// a string raw holds; nil when absent.
func rekorJSON(raw json.RawMessage) ([]byte, error) {
	if len(raw) == 0 || string(raw) == "null" || string(raw) == `""` {
		return nil, nil
	}
	if raw[0] != '"' {
		return raw, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	return []byte(s), nil
}

func (l legacy) format() string {
	if l.sigTag {
		return "cosign .sig tag signature"
	}
	return "cosign 2 sign-blob --bundle file"
}

// resign is the command that signs in the supported format instead.
func (l legacy) resign() string {
	if l.sigTag {
		return "cosign sign --new-bundle-format REF@DIGEST"
	}
	return "cosign sign-blob --new-bundle-format --bundle FILE.wasm.sigstore.json FILE.wasm"
}

// claim reads who l says signed it, without verifying.
func (l legacy) claim() sigpolicy.Identity {
	if l.cert == "" {
		return sigpolicy.Identity{}
	}
	blk, _ := pem.Decode([]byte(l.cert))
	if blk == nil {
		return sigpolicy.Identity{Certificate: true, Subject: "an unreadable certificate"}
	}
	c, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		return sigpolicy.Identity{Certificate: true, Subject: "an unreadable certificate"}
	}
	s, err := certificate.SummarizeCertificate(c)
	if err != nil {
		return sigpolicy.Identity{Certificate: true, Subject: "an unreadable certificate"}
	}
	return sigpolicy.Identity{Certificate: true, Subject: s.SubjectAlternativeName, Issuer: s.Issuer}
}

// describe says who l claims signed it, for inspect.
func (l legacy) describe() string {
	if l.cert == "" {
		return "a key (" + l.format() + ")"
	}
	if len(l.rekor) == 0 {
		return l.claim().String() + " (" + l.format() + ", keyless without a transparency-log entry: not verifiable; re-sign with " + l.resign() + ")"
	}
	return l.claim().String() + " (" + l.format() + ", keyless)"
}

// checkLegacy verifies l as a signature of digest by one of the policy's
// keys, or (keyless) by one of its identities.
func (p *policy) checkLegacy(digest []byte, l legacy) (sigpolicy.Identity, error) {
	claim := l.claim()
	signed := digest
	if l.sigTag {
		// The signature is of the payload; the payload names the manifest.
		sum := sha256.Sum256(l.payload)
		signed = sum[:]
	}
	if l.cert != "" {
		return p.checkLegacyKeyless(digest, signed, l, claim)
	}
	if len(p.keys) == 0 {
		return claim, fmt.Errorf("a %s signed with a key; the policy accepts only certificate identities", l.format())
	}
	b, err := bundle.NewBundle(&protobundle.Bundle{MediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
		VerificationMaterial: &protobundle.VerificationMaterial{Content: &protobundle.VerificationMaterial_PublicKey{PublicKey: &protocommon.PublicKeyIdentifier{}}},
		Content: &protobundle.Bundle_MessageSignature{MessageSignature: &protocommon.MessageSignature{
			MessageDigest: &protocommon.HashOutput{Algorithm: protocommon.HashAlgorithm_SHA2_256, Digest: signed},
			Signature:     l.signature}}})
	if err != nil {
		return claim, fmt.Errorf("malformed %s: %v", l.format(), err)
	}
	var last error
	for _, k := range p.keys {
		v, err := verify.NewVerifier(expiringKey(k), verify.WithNoObserverTimestamps())
		if err != nil {
			return claim, err
		}
		if _, err := v.Verify(b, verify.NewPolicy(verify.WithArtifactDigest("sha256", signed), verify.WithKey())); err != nil {
			last = err
			continue
		}
		if l.sigTag {
			if err := payloadNames(l.payload, digest); err != nil {
				return claim, err
			}
		}
		return sigpolicy.Identity{Key: k.fingerprint, KeyFile: k.file, Verified: true}, nil
	}
	return claim, fmt.Errorf("a %s by none of the policy's keys, or not of this module (%v)", l.format(), last)
}

// payloadNames checks that a simple-signing payload is cosign's signature
// of the manifest digest.
func payloadNames(payload, digest []byte) error {
	var ss struct {
		Critical struct {
			Image struct {
				Digest string `json:"docker-manifest-digest"`
			} `json:"image"`
			Type string `json:"type"`
		} `json:"critical"`
	}
	if err := json.Unmarshal(payload, &ss); err != nil {
		return fmt.Errorf("cosign .sig tag payload is not simple-signing JSON: %v", err)
	}
	if ss.Critical.Type != "cosign container image signature" {
		return fmt.Errorf("cosign .sig tag payload is of type %q, not a cosign container image signature", clip(ss.Critical.Type))
	}
	if want := fmt.Sprintf("sha256:%x", digest); ss.Critical.Image.Digest != want {
		return fmt.Errorf("the cosign .sig tag signs %q, not %s", clip(ss.Critical.Image.Digest), want)
	}
	return nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// checkLegacyKeyless verifies a keyless l, whose signature is of signed,
// as the v0.1 bundle its parts make (legacyBundle).
func (p *policy) checkLegacyKeyless(digest, signed []byte, l legacy, claim sigpolicy.Identity) (sigpolicy.Identity, error) {
	if claim.Subject == "an unreadable certificate" {
		return claim, fmt.Errorf("a keyless %s with an unreadable certificate: re-sign it as a Sigstore bundle with %s", l.format(), l.resign())
	}
	if len(p.identities) == 0 {
		return claim, fmt.Errorf("signed by %s with a certificate; the policy accepts only keys", claim)
	}
	if len(l.rekor) == 0 {
		return claim, fmt.Errorf("signed by %s in a keyless %s that has no transparency-log entry, so its short-lived certificate cannot be checked offline: re-sign it as a Sigstore bundle with %s (cosign 3 does so by default)", claim, l.format(), l.resign())
	}
	b, err := legacyBundle(l, signed)
	if err != nil {
		return claim, fmt.Errorf("malformed %s: %v: re-sign it as a Sigstore bundle with %s", l.format(), err, l.resign())
	}
	got, err := p.checkKeyless(b, verify.WithArtifactDigest("sha256", signed), claim)
	if err != nil || !l.sigTag {
		return got, err
	}
	if err := payloadNames(l.payload, digest); err != nil {
		return claim, err
	}
	return got, nil
}

// legacyBundle lays out a keyless cosign 2 signature of signed as the v0.1
// Sigstore bundle that holds the same facts: the certificate, the Rekor
// entry with its signed entry timestamp as inclusion promise, the message
// signature.
func legacyBundle(l legacy, signed []byte) (*bundle.Bundle, error) {
	var rb struct {
		SET     []byte `json:"SignedEntryTimestamp"`
		Payload struct {
			Body           string `json:"body"`
			IntegratedTime int64  `json:"integratedTime"`
			LogIndex       int64  `json:"logIndex"`
			LogID          string `json:"logID"`
		} `json:"Payload"`
	}
	if err := json.Unmarshal(l.rekor, &rb); err != nil {
		return nil, fmt.Errorf("rekorBundle: %v", err)
	}
	body, err := base64.StdEncoding.DecodeString(rb.Payload.Body)
	if err != nil {
		return nil, fmt.Errorf("rekorBundle body: %v", err)
	}
	logID, err := hex.DecodeString(rb.Payload.LogID)
	if err != nil {
		return nil, fmt.Errorf("rekorBundle logID: %v", err)
	}
	var kind struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(body, &kind); err != nil {
		return nil, fmt.Errorf("rekorBundle body: %v", err)
	}
	blk, _ := pem.Decode([]byte(l.cert))
	if blk == nil {
		return nil, fmt.Errorf("certificate: not PEM")
	}
	return bundle.NewBundle(&protobundle.Bundle{MediaType: "application/vnd.dev.sigstore.bundle+json;version=0.1",
		VerificationMaterial: &protobundle.VerificationMaterial{
			Content: &protobundle.VerificationMaterial_X509CertificateChain{X509CertificateChain: &protocommon.X509CertificateChain{
				Certificates: []*protocommon.X509Certificate{{RawBytes: blk.Bytes}}}},
			TlogEntries: []*protorekor.TransparencyLogEntry{{
				LogIndex: rb.Payload.LogIndex, LogId: &protocommon.LogId{KeyId: logID},
				KindVersion:    &protorekor.KindVersion{Kind: kind.Kind, Version: kind.APIVersion},
				IntegratedTime: rb.Payload.IntegratedTime, InclusionPromise: &protorekor.InclusionPromise{SignedEntryTimestamp: rb.SET},
				CanonicalizedBody: body}}},
		Content: &protobundle.Bundle_MessageSignature{MessageSignature: &protocommon.MessageSignature{
			MessageDigest: &protocommon.HashOutput{Algorithm: protocommon.HashAlgorithm_SHA2_256, Digest: signed},
			Signature:     l.signature}}})
}
