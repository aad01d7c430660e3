package sigpolicy

import (
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

// MaxBundleSize bounds a bundle before it is parsed.
const MaxBundleSize = 1 << 20

// CosignSignPredicate is the in-toto predicate type of a cosign signature
// (cosign sign with the bundle format signs this statement about the
// image digest).
const CosignSignPredicate = "https://sigstore.dev/cosign/sign/v1"

var (
	// ErrUnsigned: the policy requires a signature and the module has none.
	ErrUnsigned = errors.New("module is not signed")
	// ErrUntrusted: signatures exist, none satisfies the policy.
	ErrUntrusted = errors.New("no signature satisfies the policy")
	// ErrNotPinned: the policy requires a digest pin and the module has none.
	ErrNotPinned = errors.New("module is not pinned by digest")
)

// Subject is what a signature must be of: an OCI module's manifest, or a
// module file's bytes.
type Subject struct {
	Digest string // "sha256:<hex>"
	What   string // for messages: "module sha256:…", "manifest sha256:… of oci://…"
}

// Identity is a signer as a bundle names it.
type Identity struct {
	Certificate bool   // keyless: a certificate identity; else a key
	Subject     string // the certificate's subject alternative name
	Issuer      string // the certificate's OIDC issuer
	Key         string // "sha256:<fingerprint>" of a policy key, or the bundle's key hint
	KeyFile     string // the policy's key file, when one matched
	Verified    bool   // the signature verified (and this signer is the policy's)
}

func (i Identity) String() string {
	switch {
	case i.Certificate:
		return fmt.Sprintf("%s (issuer %s)", i.Subject, i.Issuer)
	case i.KeyFile != "":
		return fmt.Sprintf("key %s (%s)", i.Key, filepath.Base(i.KeyFile))
	case i.Key != "":
		return fmt.Sprintf("a key with hint %q", i.Key)
	}
	return "an unknown signer"
}

// Verified is a signature that satisfies the policy.
type Verified struct {
	Signer Identity
	Bundle int // index of the bundle in the list given to Verify
}

// Verify returns the first bundle that is a valid signature of subject by
// a signer the policy accepts. With none, the error (ErrUnsigned or
// ErrUntrusted) names every signer found, why each was refused, and the
// signers wanted.
func (p *Policy) Verify(subject Subject, bundles [][]byte) (*Verified, error) {
	digest, err := hex.DecodeString(strings.TrimPrefix(subject.Digest, "sha256:"))
	if err != nil || len(digest) != 32 {
		return nil, fmt.Errorf("subject digest %q is not sha256", subject.Digest)
	}
	if len(bundles) == 0 {
		return nil, fmt.Errorf("%w: %s carries no Sigstore bundle, and the policy wants a signature by %s: sign it (cosign sign REF, or cosign sign-blob --bundle FILE.wasm.sigstore.json FILE.wasm), or drop the signer requirement", ErrUnsigned, subject.What, p.Wanted())
	}
	var found []string
	for i, raw := range bundles {
		id, err := p.check(digest, raw)
		if err == nil {
			return &Verified{Signer: id, Bundle: i}, nil
		}
		found = append(found, fmt.Sprintf("bundle %d: %v", i+1, err))
	}
	return nil, fmt.Errorf("%w: %s: wanted a signature by %s; found: %s", ErrUntrusted, subject.What, p.Wanted(), strings.Join(found, "; "))
}

// check verifies one bundle against digest and the policy.
func (p *Policy) check(digest, raw []byte) (Identity, error) {
	b, claim, err := parse(raw)
	if err != nil {
		return claim, err
	}
	vc, err := b.VerificationContent()
	if err != nil {
		return claim, fmt.Errorf("malformed bundle: %v", err)
	}
	artifact := verify.WithArtifactDigest("sha256", digest)
	if vc.Certificate() != nil {
		if len(p.identities) == 0 {
			return claim, fmt.Errorf("signed by %s with a certificate; the policy accepts only keys", claim)
		}
		res, err := p.keyless.Verify(b, verify.NewPolicy(artifact, verify.WithoutIdentitiesUnsafe()))
		if err != nil {
			return claim, fmt.Errorf("a signature claiming %s does not verify: %v", claim, err)
		}
		if err := signatureStatement(res); err != nil {
			return claim, err
		}
		got := Identity{Certificate: true, Subject: res.Signature.Certificate.SubjectAlternativeName, Issuer: res.Signature.Certificate.Issuer}
		ids := make(verify.CertificateIdentities, len(p.identities))
		for i, id := range p.identities {
			ids[i] = id.cid
		}
		if _, err := ids.Verify(*res.Signature.Certificate); err != nil {
			return got, fmt.Errorf("signed by %s, who is not a signer the policy accepts", got)
		}
		got.Verified = true
		return got, nil
	}
	if len(p.keys) == 0 {
		return claim, fmt.Errorf("signed with %s; the policy accepts only certificate identities", claim)
	}
	var last error
	for _, k := range p.keys {
		material := root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) {
			return root.NewExpiringKey(k.verifier, time.Time{}, time.Time{}), nil
		})
		v, err := verify.NewVerifier(material, verify.WithNoObserverTimestamps())
		if err != nil {
			return claim, err
		}
		res, err := v.Verify(b, verify.NewPolicy(artifact, verify.WithKey()))
		if err != nil {
			last = err
			continue
		}
		if err := signatureStatement(res); err != nil {
			return claim, err
		}
		return Identity{Key: k.fingerprint, KeyFile: k.file, Verified: true}, nil
	}
	return claim, fmt.Errorf("signed with %s, which is none of the policy's keys or does not sign this module (%v)", claim, last)
}

// signatureStatement refuses a DSSE bundle whose statement is an
// attestation rather than cosign's signature statement.
func signatureStatement(res *verify.VerificationResult) error {
	if res.Statement != nil && res.Statement.GetPredicateType() != CosignSignPredicate {
		return fmt.Errorf("an in-toto attestation of type %q, not a signature (cosign sign or sign-blob make one)", res.Statement.GetPredicateType())
	}
	return nil
}

// parse decodes a bundle and reads, without verifying, who it claims
// signed it.
func parse(raw []byte) (*bundle.Bundle, Identity, error) {
	if len(raw) > MaxBundleSize {
		return nil, Identity{}, fmt.Errorf("bundle is %d bytes, over the %d read", len(raw), MaxBundleSize)
	}
	var b bundle.Bundle
	if err := b.UnmarshalJSON(raw); err != nil {
		return nil, Identity{}, fmt.Errorf("malformed bundle: %v", err)
	}
	vc, err := b.VerificationContent()
	if err != nil {
		return nil, Identity{}, fmt.Errorf("malformed bundle: %v", err)
	}
	if c := vc.Certificate(); c != nil {
		s, err := certificate.SummarizeCertificate(c)
		if err != nil {
			return nil, Identity{}, fmt.Errorf("malformed bundle certificate: %v", err)
		}
		return &b, Identity{Certificate: true, Subject: s.SubjectAlternativeName, Issuer: s.Issuer}, nil
	}
	if k := vc.PublicKey(); k != nil {
		return &b, Identity{Key: k.Hint()}, nil
	}
	return nil, Identity{}, errors.New("malformed bundle: neither a certificate nor a public key")
}

// Describe reads who each bundle claims signed it, without verifying
// anything (inspect without a policy). A bundle that does not parse is
// described by its error.
func Describe(bundles [][]byte) []string {
	var out []string
	for _, raw := range bundles {
		_, id, err := parse(raw)
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		out = append(out, id.String())
	}
	return out
}
