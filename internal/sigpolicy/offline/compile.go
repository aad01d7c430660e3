// Package offline is signature verification itself: sigstore-go's offline
// verification of Sigstore bundles against the operator's keys and trusted
// root, as a sigpolicy.Engine. Importing it registers it in the process.
//
// Only the verifier program (cmd/mcp-wasm-verify) and tests import it:
// sigstore-go links Rekor's REST client, OpenTelemetry, go-openapi and
// gRPC, whose package initializers alone allocate megabytes that the
// collector marks on every cycle. mcp-wasm runs the verifier when a
// policy asks for a signature (sigpolicy.Engine).
//
// It fetches nothing: the bundle carries the certificate, transparency-log
// entry and timestamps, and the trusted root is a file. See package
// sigpolicy for the security rules it applies.
package offline

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/mcp-wasm/mcp-wasm/internal/hostfile"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy"
)

func init() { sigpolicy.Register(Engine{}) }

// Engine is sigstore-go's offline verification as a sigpolicy.Engine.
type Engine struct{}

// policy is a spec loaded for verification.
type policy struct {
	keys       []key
	identities []verify.CertificateIdentity
	keyless    *verify.Verifier // nil without a trusted root
}

type key struct {
	file        string
	fingerprint string
	verifier    signature.Verifier
}

// Check loads spec as Verify would.
func (Engine) Check(spec sigpolicy.Spec) error {
	_, err := load(spec)
	return err
}

// load reads the keys and the trusted root spec names (its paths are
// absolute: sigpolicy.Compile resolved them) and compiles its identities.
func load(spec sigpolicy.Spec) (*policy, error) {
	p := &policy{}
	var problems []error
	for i, s := range spec.Signers {
		if err := p.addSigner(s); err != nil {
			problems = append(problems, fmt.Errorf("signer %d: %w", i+1, err))
		}
	}
	if spec.TrustedRoot != "" {
		tr, err := root.NewTrustedRootFromPath(spec.TrustedRoot)
		if err != nil {
			problems = append(problems, fmt.Errorf("trusted root %s: %v: give the trusted_root.json of your Sigstore instance (cosign trusted-root create writes one)", spec.TrustedRoot, err))
		} else if p.keyless, err = newKeylessVerifier(tr); err != nil {
			problems = append(problems, fmt.Errorf("trusted root %s: %w", spec.TrustedRoot, err))
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

func (p *policy) addSigner(s sigpolicy.Signer) error {
	if s.Key != "" && !s.IsKeyless() {
		k, err := loadKey(s.Key)
		if err != nil {
			return err
		}
		p.keys = append(p.keys, k)
		return nil
	}
	cid, err := verify.NewShortCertificateIdentity(s.Issuer, sigpolicy.Anchor(s.IssuerRegexp), s.Identity, sigpolicy.Anchor(s.IdentityRegexp))
	if err != nil {
		return fmt.Errorf("%v: fix the regular expression", err)
	}
	p.identities = append(p.identities, cid)
	return nil
}

func loadKey(path string) (key, error) {
	b, err := hostfile.ReadFile(path, 1<<20)
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

// expiringKey is a policy key as trusted material: valid at any time.
func expiringKey(k key) root.TrustedMaterial {
	return root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) {
		return root.NewExpiringKey(k.verifier, time.Time{}, time.Time{}), nil
	})
}
