package sigpolicy

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"

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

// Policy is a compiled Spec: keys read, trusted root parsed, expressions
// compiled.
type Policy struct {
	requireDigest bool
	keys          []key
	identities    []identity
	trusted       root.TrustedMaterial // nil without a trusted root
	keyless       *verify.Verifier     // nil without a trusted root
}

type key struct {
	file        string
	fingerprint string // sha256 of the PKIX DER
	verifier    signature.Verifier
}

type identity struct {
	want Signer
	cid  verify.CertificateIdentity
}

// Compile checks spec and loads what it names; relative paths are taken
// from base. Every problem is reported with its fix.
func Compile(spec Spec, base string) (*Policy, error) {
	p := &Policy{requireDigest: spec.RequireDigest}
	var problems []error
	for i, s := range spec.Signers {
		if err := p.addSigner(s, base); err != nil {
			problems = append(problems, fmt.Errorf("signer %d: %w", i+1, err))
		}
	}
	if spec.TrustedRoot != "" {
		path := resolve(base, spec.TrustedRoot)
		tr, err := readTrustedRoot(path)
		if err != nil {
			problems = append(problems, fmt.Errorf("trusted root %s: %v: give the trusted_root.json of your Sigstore instance (cosign trusted-root create writes one)", path, err))
		} else if p.keyless, err = newKeylessVerifier(tr); err != nil {
			problems = append(problems, fmt.Errorf("trusted root %s: %w", path, err))
		} else {
			p.trusted = tr
		}
	}
	if len(p.identities) > 0 && spec.TrustedRoot == "" {
		problems = append(problems, errors.New("certificate identities are checked against a trusted root: give one (--trusted-root FILE, or \"trustedRoot\" in the policy)"))
	}
	if err := errors.Join(problems...); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Policy) addSigner(s Signer, base string) error {
	keyless := s.Identity != "" || s.IdentityRegexp != "" || s.Issuer != "" || s.IssuerRegexp != ""
	switch {
	case s.Key != "" && keyless:
		return errors.New("give a key or an identity with its issuer, not both")
	case s.Key != "":
		k, err := loadKey(resolve(base, s.Key))
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
	cid, err := verify.NewShortCertificateIdentity(s.Issuer, anchor(s.IssuerRegexp), s.Identity, anchor(s.IdentityRegexp))
	if err != nil {
		return fmt.Errorf("%v: fix the regular expression", err)
	}
	for _, re := range []string{s.IdentityRegexp, s.IssuerRegexp} {
		if _, err := regexp.Compile(anchor(re)); err != nil {
			return fmt.Errorf("regular expression %q: %v", re, err)
		}
	}
	p.identities = append(p.identities, identity{want: s, cid: cid})
	return nil
}

// anchor makes a regular expression match the whole value only.
func anchor(re string) string {
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

// readTrustedRoot reads a trusted root JSON file, as every file the host
// reads for the operator is read (hostfile: a FIFO or device is refused
// without blocking).
func readTrustedRoot(path string) (*root.TrustedRoot, error) {
	b, err := hostfile.ReadFile(path, maxRootSize)
	if err != nil {
		return nil, err
	}
	return root.NewTrustedRootFromJSON(b)
}

func loadKey(path string) (key, error) {
	b, err := hostfile.ReadFile(path, maxKeySize)
	if err != nil {
		return key{}, fmt.Errorf("read public key: %w: give the PEM public key file (cosign.pub)", err)
	}
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(b)
	if err != nil {
		return key{}, fmt.Errorf("public key %s: %v: give a PEM \"PUBLIC KEY\" file (cosign.pub)", path, err)
	}
	v, err := signature.LoadDefaultVerifier(pub)
	if err != nil {
		return key{}, fmt.Errorf("public key %s: %v", path, err)
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return key{}, fmt.Errorf("public key %s: %v", path, err)
	}
	sum := sha256.Sum256(der)
	return key{file: path, fingerprint: "sha256:" + hex.EncodeToString(sum[:]), verifier: v}, nil
}

// newKeylessVerifier verifies what the trusted root's deployment
// produces: an observer timestamp always (a log's integrated time or an
// RFC 3161 timestamp) to check the short-lived certificate against, a
// transparency-log entry when the root lists logs, an SCT when it lists
// CT logs.
func newKeylessVerifier(tr *root.TrustedRoot) (*verify.Verifier, error) {
	if len(tr.FulcioCertificateAuthorities()) == 0 {
		return nil, errors.New("it lists no certificate authority: keyless signatures cannot be checked against it")
	}
	opts := []verify.VerifierOption{verify.WithObserverTimestamps(1)}
	if len(tr.RekorLogs()) > 0 {
		opts = append(opts, verify.WithTransparencyLog(1))
	}
	if len(tr.CTLogs()) > 0 {
		opts = append(opts, verify.WithSignedCertificateTimestamps(1))
	}
	return verify.NewVerifier(tr, opts...)
}

// Unpinned returns the policy without its digest requirement, for
// pinning (mcp-wasm lock resolves tags under the rest of the policy).
func (p *Policy) Unpinned() *Policy {
	if p == nil {
		return nil
	}
	c := *p
	c.requireDigest = false
	return &c
}

// RequiresDigest reports whether modules must be pinned by digest.
func (p *Policy) RequiresDigest() bool { return p != nil && p.requireDigest }

// RequiresSignature reports whether modules must be signed.
func (p *Policy) RequiresSignature() bool { return p != nil && len(p.keys)+len(p.identities) > 0 }

// Wanted describes the accepted signers, for messages.
func (p *Policy) Wanted() string {
	var out []string
	for _, i := range p.identities {
		out = append(out, describeRule(i.want))
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
