package offline

import (
	"errors"
	"fmt"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/verify"

	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy"
)

// Verify checks the bundles in order against digest under spec, stopping
// at the first that is a valid signature by a signer spec accepts.
func (Engine) Verify(spec sigpolicy.Spec, digest []byte, bundles [][]byte) ([]sigpolicy.Result, error) {
	if len(digest) != 32 {
		return nil, fmt.Errorf("digest is %d bytes, not a sha256", len(digest))
	}
	p, err := load(spec)
	if err != nil {
		return nil, err
	}
	var out []sigpolicy.Result
	for _, raw := range bundles {
		id, err := p.check(digest, raw)
		r := sigpolicy.Result{Signer: id}
		if err != nil {
			r.Signer.Verified, r.Err = false, err.Error()
		}
		out = append(out, r)
		if err == nil {
			break
		}
	}
	return out, nil
}

// check verifies one bundle against digest and the policy.
func (p *policy) check(digest, raw []byte) (sigpolicy.Identity, error) {
	if len(raw) <= sigpolicy.MaxBundleSize {
		if l, ok, err := parseLegacy(raw); ok {
			if err != nil {
				return sigpolicy.Identity{}, err
			}
			return p.checkLegacy(digest, l)
		}
	}
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
		return p.checkKeyless(b, artifact, claim)
	}
	if len(p.keys) == 0 {
		return claim, fmt.Errorf("signed with %s; the policy accepts only certificate identities", claim)
	}
	var last error
	for _, k := range p.keys {
		v, err := verify.NewVerifier(expiringKey(k), verify.WithNoObserverTimestamps())
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
		return sigpolicy.Identity{Key: k.fingerprint, KeyFile: k.file, Verified: true}, nil
	}
	return claim, fmt.Errorf("signed with %s, which is none of the policy's keys or does not sign this module (%v)", claim, last)
}

// checkKeyless verifies a bundle signed with a certificate against the
// trusted root, then its identity against the policy's.
func (p *policy) checkKeyless(b *bundle.Bundle, artifact verify.ArtifactPolicyOption, claim sigpolicy.Identity) (sigpolicy.Identity, error) {
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
	got := sigpolicy.Identity{Certificate: true, Subject: res.Signature.Certificate.SubjectAlternativeName, Issuer: res.Signature.Certificate.Issuer}
	if _, err := verify.CertificateIdentities(p.identities).Verify(*res.Signature.Certificate); err != nil {
		return got, fmt.Errorf("signed by %s, who is not a signer the policy accepts", got)
	}
	got.Verified = true
	return got, nil
}

// signatureStatement refuses a DSSE bundle whose statement is an
// attestation rather than cosign's signature statement.
func signatureStatement(res *verify.VerificationResult) error {
	if res.Statement != nil && res.Statement.GetPredicateType() != sigpolicy.CosignSignPredicate {
		return fmt.Errorf("an in-toto attestation of type %q, not a signature (cosign sign or sign-blob make one)", res.Statement.GetPredicateType())
	}
	return nil
}

// parse decodes a bundle and reads, without verifying, who it claims
// signed it.
func parse(raw []byte) (*bundle.Bundle, sigpolicy.Identity, error) {
	if len(raw) > sigpolicy.MaxBundleSize {
		return nil, sigpolicy.Identity{}, fmt.Errorf("bundle is %d bytes, over the %d read", len(raw), sigpolicy.MaxBundleSize)
	}
	var b bundle.Bundle
	if err := b.UnmarshalJSON(raw); err != nil {
		return nil, sigpolicy.Identity{}, fmt.Errorf("malformed bundle: %v", err)
	}
	vc, err := b.VerificationContent()
	if err != nil {
		return nil, sigpolicy.Identity{}, fmt.Errorf("malformed bundle: %v", err)
	}
	if c := vc.Certificate(); c != nil {
		s, err := certificate.SummarizeCertificate(c)
		if err != nil {
			return nil, sigpolicy.Identity{}, fmt.Errorf("malformed bundle certificate: %v", err)
		}
		return &b, sigpolicy.Identity{Certificate: true, Subject: s.SubjectAlternativeName, Issuer: s.Issuer}, nil
	}
	if k := vc.PublicKey(); k != nil {
		return &b, sigpolicy.Identity{Key: k.Hint()}, nil
	}
	return nil, sigpolicy.Identity{}, errors.New("malformed bundle: neither a certificate nor a public key")
}

// Describe reads who each bundle claims signed it, without verifying
// anything. A bundle that does not parse is described by its error.
func (Engine) Describe(bundles [][]byte) ([]string, error) {
	out := make([]string, 0, len(bundles))
	for _, raw := range bundles {
		if l, ok, err := parseLegacy(raw); ok && len(raw) <= sigpolicy.MaxBundleSize {
			if err != nil {
				out = append(out, err.Error())
			} else {
				out = append(out, l.describe())
			}
			continue
		}
		_, id, err := parse(raw)
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		out = append(out, id.String())
	}
	return out, nil
}
