package sigpolicy

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/internal/hostfile"
)

// Spec is a policy as the operator writes it, in the config file (the JSON
// names below) or as flags. The zero Spec requires nothing.
type Spec struct {
	// RequireDigest refuses a module that is not pinned: an oci:// reference
	// without @sha256:..., or a file without "sha256".
	RequireDigest bool `json:"requireDigest"`
	// Signers are the accepted signers; a module needs a signature by one
	// of them. None: signatures are not required.
	Signers []Signer `json:"signers"`
	// TrustedRoot is the Sigstore trusted root JSON (cosign trusted-root
	// create, or the trusted_root.json of Sigstore's TUF repository) that
	// certificate identities are checked against. Relative to the config
	// file's directory.
	TrustedRoot string `json:"trustedRoot"`
}

// Signer is one accepted signer: a public key, or a certificate identity
// (the certificate's subject alternative name: an email, or a workflow
// URI) issued through an OIDC issuer.
type Signer struct {
	Key            string `json:"key"` // PEM public key file
	Identity       string `json:"identity"`
	IdentityRegexp string `json:"identityRegexp"`
	Issuer         string `json:"issuer"`
	IssuerRegexp   string `json:"issuerRegexp"`
}

// IsZero reports whether the spec requires nothing.
func (s Spec) IsZero() bool { return !s.RequireDigest && len(s.Signers) == 0 && s.TrustedRoot == "" }

// IsKeyless reports whether the signer is a certificate identity.
func (s Signer) IsKeyless() bool {
	return s.Identity != "" || s.IdentityRegexp != "" || s.Issuer != "" || s.IssuerRegexp != ""
}

// Policy is a checked Spec: its rules checked, its keys read, its
// expressions compiled and, through the verifier (see Engine), its keys
// and trusted root loaded as Sigstore loads them.
type Policy struct {
	spec       Spec // paths absolute (or as given, without a base)
	keys       []key
	identities []Signer
}

type key struct {
	file        string
	fingerprint string // sha256 of the PKIX DER
}

// Compile checks spec and loads what it names; relative paths are taken
// from base. Every problem is reported with its fix. A spec that names
// keys or a trusted root is also loaded by the verifier (Engine.Check), so
// that what it would refuse at the first signature is refused here.
func Compile(spec Spec, base string) (*Policy, error) {
	p := &Policy{spec: Spec{RequireDigest: spec.RequireDigest}}
	var problems []error
	for i, s := range spec.Signers {
		if s.Key != "" {
			s.Key = resolve(base, s.Key)
		}
		if err := p.addSigner(s); err != nil {
			problems = append(problems, fmt.Errorf("signer %d: %w", i+1, err))
		}
		p.spec.Signers = append(p.spec.Signers, s)
	}
	if spec.TrustedRoot != "" {
		p.spec.TrustedRoot = resolve(base, spec.TrustedRoot)
		if _, err := hostfile.ReadFile(p.spec.TrustedRoot, maxRootSize); err != nil {
			problems = append(problems, fmt.Errorf("trusted root %s: %v: give the trusted_root.json of your Sigstore instance (cosign trusted-root create writes one)", p.spec.TrustedRoot, err))
		}
	}
	if len(p.identities) > 0 && spec.TrustedRoot == "" {
		problems = append(problems, errors.New("certificate identities are checked against a trusted root: give one (--trusted-root FILE, or \"trustedRoot\" in the policy)"))
	}
	if len(problems) == 0 && (len(p.spec.Signers) > 0 || p.spec.TrustedRoot != "") {
		if err := engine().Check(p.spec); err != nil {
			problems = append(problems, err)
		}
	}
	if err := errors.Join(problems...); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Policy) addSigner(s Signer) error {
	switch {
	case s.Key != "" && s.IsKeyless():
		return errors.New("give a key or an identity with its issuer, not both")
	case s.Key != "":
		k, err := loadKey(s.Key)
		if err != nil {
			return err
		}
		p.keys = append(p.keys, k)
		return nil
	case (s.Identity == "") == (s.IdentityRegexp == ""):
		return errors.New("give exactly one of identity and identityRegexp (the certificate's email or workflow URI), or a key")
	case (s.Issuer == "") == (s.IssuerRegexp == ""):
		return errors.New("give exactly one of issuer and issuerRegexp (the OIDC issuer, such as https://token.actions.githubusercontent.com)")
	}
	for _, re := range []string{s.IdentityRegexp, s.IssuerRegexp} {
		if _, err := regexp.Compile(Anchor(re)); err != nil {
			return fmt.Errorf("regular expression %q: %v", re, err)
		}
	}
	p.identities = append(p.identities, s)
	return nil
}

// Anchor makes a regular expression match the whole value only.
func Anchor(re string) string {
	if re == "" {
		return ""
	}
	return "^(?:" + re + ")$"
}

func resolve(base, p string) string {
	if filepath.IsAbs(p) || base == "" {
		return p
	}
	return filepath.Join(base, p)
}

// maxKeySize bounds a public key file; maxRootSize a trusted root, which
// lists every key and certificate of a Sigstore instance's history.
const (
	maxKeySize  = 1 << 20
	maxRootSize = 16 << 20
)

// loadKey reads a PEM public key for its fingerprint; the verifier loads
// it again as Sigstore does (Engine.Check).
func loadKey(path string) (key, error) {
	b, err := hostfile.ReadFile(path, maxKeySize)
	if err != nil {
		return key{}, fmt.Errorf("read public key: %w: give the PEM public key file (cosign.pub)", err)
	}
	der, err := pemPublicKey(b)
	if err != nil {
		return key{}, fmt.Errorf("public key %s: %v: give a PEM \"PUBLIC KEY\" file (cosign.pub)", path, err)
	}
	sum := sha256.Sum256(der)
	return key{file: path, fingerprint: "sha256:" + hex.EncodeToString(sum[:])}, nil
}

// pemPublicKey returns the PKIX DER of the key in a PEM "PUBLIC KEY" (or
// PKCS #1 "RSA PUBLIC KEY") block, re-marshalled as the verifier
// fingerprints it; the error messages are Sigstore's (cryptoutils).
func pemPublicKey(b []byte) ([]byte, error) {
	block, _ := pem.Decode(b)
	if block == nil {
		return nil, errors.New("PEM decoding failed")
	}
	var pub any
	var err error
	switch block.Type {
	case "PUBLIC KEY":
		pub, err = x509.ParsePKIXPublicKey(block.Bytes)
	case "RSA PUBLIC KEY":
		pub, err = x509.ParsePKCS1PublicKey(block.Bytes)
	default:
		return nil, fmt.Errorf("unknown Public key PEM file type: %v. Are you passing the correct public key?", block.Type)
	}
	if err != nil {
		return nil, err
	}
	return x509.MarshalPKIXPublicKey(pub)
}

// Spec returns the policy's spec, every path absolute (when compiled with
// a base), for the verifier.
func (p *Policy) Spec() Spec {
	s := p.spec
	s.Signers = append([]Signer(nil), s.Signers...)
	return s
}

// Unpinned returns the policy without its digest requirement, for
// pinning (mcp-wasm lock resolves tags under the rest of the policy).
func (p *Policy) Unpinned() *Policy {
	if p == nil {
		return nil
	}
	c := *p
	c.spec.RequireDigest = false
	return &c
}

// RequiresDigest reports whether modules must be pinned by digest.
func (p *Policy) RequiresDigest() bool { return p != nil && p.spec.RequireDigest }

// RequiresSignature reports whether modules must be signed.
func (p *Policy) RequiresSignature() bool { return p != nil && len(p.keys)+len(p.identities) > 0 }

// Wanted describes the accepted signers, for messages.
func (p *Policy) Wanted() string {
	var out []string
	for _, i := range p.identities {
		out = append(out, describeRule(i))
	}
	for _, k := range p.keys {
		out = append(out, fmt.Sprintf("key %s (%s)", k.fingerprint, filepath.Base(k.file)))
	}
	return strings.Join(out, " or ")
}

func describeRule(s Signer) string {
	id, iss := s.Identity, s.Issuer
	if id == "" {
		id = "~/" + s.IdentityRegexp + "/"
	}
	if iss == "" {
		iss = "~/" + s.IssuerRegexp + "/"
	}
	return fmt.Sprintf("%s (issuer %s)", id, iss)
}
