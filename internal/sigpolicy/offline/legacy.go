package offline

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/verify"

	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy"
)

// cosign 2's formats from before the Sigstore bundle: the .sig tag (the
// puller gathers each signature into a document of this media type, see
// oci.CosignSig) and sign-blob --bundle's own JSON (cosign's
// LocalSignedPayload). A key signature in either is verified by
// sigstore-go as the message signature it is; a certificate (keyless)
// one is refused with the flag that re-signs it as a bundle: its Rekor
// entry is in cosign's own form, which sigstore-go does not read.
const mediaTypeCosignSig = "application/vnd.dev.cosign.simplesigning.v1+json"

// legacy is a signature in one of cosign 2's older formats.
type legacy struct {
	sigTag    bool   // the .sig tag; else a sign-blob --bundle file
	payload   []byte // the .sig tag's simple-signing payload, as signed
	signature []byte
	cert      string // PEM, for a keyless signature
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
	if err != nil {
		return l, true, fmt.Errorf("malformed %s: %v", l.format(), err)
	}
	return l, true, nil
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
	return l.claim().String() + " (" + l.format() + ", keyless: not verified; re-sign with " + l.resign() + ")"
}

// checkLegacy verifies l as a signature of digest by one of the policy's
// keys; a keyless one is refused, saying how to re-sign it.
func (p *policy) checkLegacy(digest []byte, l legacy) (sigpolicy.Identity, error) {
	claim := l.claim()
	if l.cert != "" {
		return claim, fmt.Errorf("signed by %s in a keyless %s, which is not verified (its transparency-log entry is in cosign's older form): re-sign it as a Sigstore bundle with %s (cosign 3 does so by default)", claim, l.format(), l.resign())
	}
	if len(p.keys) == 0 {
		return claim, fmt.Errorf("a %s signed with a key; the policy accepts only certificate identities", l.format())
	}
	signed := digest
	if l.sigTag {
		// The key signs the payload; the payload names the manifest.
		sum := sha256.Sum256(l.payload)
		signed = sum[:]
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
