package sigpolicy

import (
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
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
	Certificate bool   `json:"certificate,omitempty"` // keyless: a certificate identity; else a key
	Subject     string `json:"subject,omitempty"`     // the certificate's subject alternative name
	Issuer      string `json:"issuer,omitempty"`      // the certificate's OIDC issuer
	Key         string `json:"key,omitempty"`         // "sha256:<fingerprint>" of a policy key, or the bundle's key hint
	KeyFile     string `json:"keyFile,omitempty"`     // the policy's key file, when one matched
	Verified    bool   `json:"verified,omitempty"`    // the signature verified (and this signer is the policy's)
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
// signers wanted. The bundles are checked by the verifier (Engine.Verify).
func (p *Policy) Verify(subject Subject, bundles [][]byte) (*Verified, error) {
	digest, err := hex.DecodeString(strings.TrimPrefix(subject.Digest, "sha256:"))
	if err != nil || len(digest) != 32 {
		return nil, fmt.Errorf("subject digest %q is not sha256", subject.Digest)
	}
	if len(bundles) == 0 {
		return nil, fmt.Errorf("%w: %s carries no Sigstore bundle, and the policy wants a signature by %s: sign it (cosign sign REF, or cosign sign-blob --bundle FILE.wasm.sigstore.json FILE.wasm), or drop the signer requirement", ErrUnsigned, subject.What, p.Wanted())
	}
	results, err := engine().Verify(p.spec, digest, bundles)
	if err != nil {
		return nil, fmt.Errorf("verify the signatures of %s: %w", subject.What, err)
	}
	var found []string
	for i, r := range results {
		if r.Err == "" && r.Signer.Verified {
			return &Verified{Signer: r.Signer, Bundle: i}, nil
		}
		found = append(found, fmt.Sprintf("bundle %d: %s", i+1, r.Err))
	}
	return nil, fmt.Errorf("%w: %s: wanted a signature by %s; found: %s", ErrUntrusted, subject.What, p.Wanted(), strings.Join(found, "; "))
}

// Describe reads who each bundle claims signed it, without verifying
// anything (inspect without a policy). A bundle that does not parse is
// described by its error. Without bundles the verifier is not asked.
func Describe(bundles [][]byte) []string {
	if len(bundles) == 0 {
		return nil
	}
	out, err := engine().Describe(bundles)
	if err != nil {
		out = make([]string, len(bundles))
		for i := range out {
			out[i] = fmt.Sprintf("not read: %v", err)
		}
	}
	return out
}
