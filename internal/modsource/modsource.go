// Package modsource turns a module reference into verified bytes: a file
// path, or an oci:// reference pulled into (or found in) the local store,
// checked against a pinned digest and the operator's signature policy.
// It is the one place where a module's bytes come from.
//
// # Security
//
// The bytes returned are the bytes checked: the digest is computed on
// them, the store re-verifies on every read, and a pin or policy failure
// returns no bytes at all. A reference pinned by digest and already
// pulled never touches the network; a tag is asked of the registry at
// every load, and only when the registry cannot be reached is the digest
// the tag had at its last pull used, with a note saying so.
package modsource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mcp-wasm/mcp-wasm/internal/hostfile"
	"github.com/mcp-wasm/mcp-wasm/internal/oci"
	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy"
)

// ErrPin: the module's bytes are not the ones its pin names.
var ErrPin = errors.New("module does not match its pinned digest")

// BundleSuffix is appended to a module file's path to find its Sigstore
// bundle, where cosign sign-blob --bundle writes it by convention.
const BundleSuffix = ".sigstore.json"

// Resolver resolves module references.
type Resolver struct {
	store  *oci.Store
	client *oci.Client
}

// New returns a resolver that keeps pulled modules in store (nil: oci://
// references are refused) and reaches registries with client.
func New(store *oci.Store, client *oci.Client) *Resolver {
	return &Resolver{store: store, client: client}
}

// Request is one module to resolve.
type Request struct {
	Module  string            // "oci://HOST/REPO:TAG[@sha256:...]" or a file path
	SHA256  string            // optional pin of the module bytes
	Policy  *sigpolicy.Policy // nil: no requirement
	MaxSize int64             // the module size limit
	// Refresh asks the registry even for a pinned reference already in
	// the store (mcp-wasm pull), to fetch signatures attached since.
	Refresh bool
	// Signatures asks who each bundle found claims signed the module
	// (Module.Signatures), for inspect and pull: reading them runs the
	// signature verifier, which a load does not need.
	Signatures bool
}

// Module is a resolved module.
type Module struct {
	Wasm   []byte
	Digest string   // of Wasm, "sha256:..."
	Source string   // the path, or the reference pinned to its manifest digest
	Ref    *oci.Ref // the pinned reference; nil for a file
	// Offline: taken from the store without asking the registry.
	Offline bool
	// Signer is who signed it, when the policy required a signature.
	Signer *sigpolicy.Identity
	// Signatures says who each bundle found claims signed it (unverified),
	// when the request asked.
	Signatures  []string
	Annotations map[string]string // the manifest's, for an oci:// module
	Notes       []string          // warnings worth logging
}

// IsRef reports whether module is an oci:// reference.
func IsRef(module string) bool { return oci.IsRef(module) }

// Resolve returns the module req names, its pin and policy checked. A
// module read offline from the store whose stored signatures do not
// satisfy the policy is asked of the registry once more, for signatures
// attached since it was pulled.
func (r *Resolver) Resolve(ctx context.Context, req Request) (*Module, error) {
	m, err := r.resolve(ctx, req)
	if m != nil && m.Offline && !req.Refresh && (errors.Is(err, sigpolicy.ErrUnsigned) || errors.Is(err, sigpolicy.ErrUntrusted)) {
		req.Refresh = true
		if again, err2 := r.resolve(ctx, req); again != nil && !again.Offline {
			return again, err2
		}
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// resolve is Resolve without the retry; on a policy failure it returns
// the module as well, so that Resolve knows where it came from.
func (r *Resolver) resolve(ctx context.Context, req Request) (*Module, error) {
	pin := ""
	if req.SHA256 != "" {
		var err error
		if pin, err = oci.ParseDigest(req.SHA256); err != nil {
			return nil, fmt.Errorf("sha256 pin of %s: %w", req.Module, err)
		}
	}
	var m *Module
	var bundles [][]byte
	var subject sigpolicy.Subject
	var err error
	if oci.IsRef(req.Module) {
		m, bundles, subject, err = r.fromRegistry(ctx, req, pin)
	} else {
		m, bundles, subject, err = fromFile(req, pin)
	}
	if err != nil {
		return nil, err
	}
	if pin != "" && m.Digest != pin {
		return nil, fmt.Errorf("%w: %s is %s, the pin says %s: the bytes changed since they were pinned; check where they come from, then update the pin (mcp-wasm lock)", ErrPin, m.Source, m.Digest, pin)
	}
	if req.Signatures {
		m.Signatures = sigpolicy.Describe(bundles)
	}
	if req.Policy.RequiresSignature() {
		v, err := req.Policy.Verify(subject, bundles)
		if err != nil {
			return m, err
		}
		m.Signer = &v.Signer
	}
	return m, nil
}

// fromFile reads a module file and the bundle beside it.
func fromFile(req Request, pin string) (*Module, [][]byte, sigpolicy.Subject, error) {
	var subject sigpolicy.Subject
	wasm, err := readFile(req.Module, req.MaxSize)
	if err != nil {
		return nil, nil, subject, err
	}
	m := &Module{Wasm: wasm, Digest: oci.Digest(wasm), Source: req.Module}
	if req.Policy.RequiresDigest() && pin == "" {
		return nil, nil, subject, fmt.Errorf("%w: %s has no sha256 pin and the policy requires one: add \"sha256\": %q to its entry (after checking the file is the one you mean)", sigpolicy.ErrNotPinned, req.Module, oci.DigestHex(m.Digest))
	}
	var bundles [][]byte
	b, err := readFile(req.Module+BundleSuffix, sigpolicy.MaxBundleSize)
	switch {
	case err == nil:
		bundles = append(bundles, b)
	case !errors.Is(err, os.ErrNotExist):
		return nil, nil, subject, fmt.Errorf("signature bundle: %w", err)
	}
	return m, bundles, sigpolicy.Subject{Digest: m.Digest, What: fmt.Sprintf("module %s (%s)", req.Module, m.Digest)}, nil
}

// readFile reads a whole file of at most limit bytes, refusing a larger
// one before reading it.
func readFile(path string, limit int64) ([]byte, error) {
	f, err := hostfile.Open(path) // a regular file, or refused without blocking
	if err != nil {
		return nil, fmt.Errorf("open module: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > limit {
		return nil, fmt.Errorf("%w: %s is %d bytes, the limit is %d: raise the module size limit if you trust it", oci.ErrTooLarge, path, fi.Size(), limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: %s is over the %d-byte limit", oci.ErrTooLarge, path, limit)
	}
	return b, nil
}

// Client returns the registry client, for publishing.
func (r *Resolver) Client() *oci.Client { return r.client }
