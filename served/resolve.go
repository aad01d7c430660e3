package served

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/internal/hostfile"
	"github.com/mcp-wasm/mcp-wasm/internal/modsource"
	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// Module is a provider module's bytes and where they came from.
type Module struct {
	// Ref is the reference it was resolved from.
	Ref config.ModuleRef
	// Wasm is the module.
	Wasm []byte
	// Digest is "sha256:" and the hex SHA-256 of Wasm.
	Digest string
	// Watch is the local file whose change means the module changed (hot
	// reload polls it), or "" when no local file backs it.
	Watch string
	// Pinned is the reference pinned to exactly these bytes, for a
	// registry reference (oci://HOST/REPO:TAG@sha256:MANIFEST); "" for
	// any other.
	Pinned config.ModuleRef
	// Offline is set when a registry module was read from the module
	// store without asking the registry.
	Offline bool
	// Signer is who signed the module, verified against the policy of the
	// request; "" when the policy required no signature.
	Signer string
	// Signatures says who each signature found claims signed the module,
	// unverified (for inspect), when the request asked.
	Signatures []string
	// Notes are warnings worth logging (a registry that could not be
	// reached, signatures that could not be read).
	Notes []string
}

// Request is one module to resolve: where it is, the pin and policy it
// must satisfy, and the largest size accepted.
type Request struct {
	Ref config.ModuleRef
	// SHA256 pins the bytes ("sha256:..."); "" pins nothing.
	SHA256 string
	// Policy is the signature policy; nil requires nothing.
	Policy *sigpolicy.Policy
	// MaxBytes is the largest module accepted, refused before it is read
	// or downloaded whole.
	MaxBytes int
	// Refresh asks a registry again even for a pinned reference already
	// in the module store, for signatures attached since (mcp-wasm pull).
	Refresh bool
	// Signatures asks for Module.Signatures (inspect, pull): reading them
	// runs the signature verifier, which serving does not need.
	Signatures bool
}

// RequestFor is the request for a provider's module.
func RequestFor(p config.Provider) Request {
	return Request{Ref: p.Module, SHA256: p.SHA256, Policy: p.Policy, MaxBytes: p.Limits.ModuleSizeLimit()}
}

// Resolver returns the bytes of the module a request names, checked
// against its pin and policy, refusing one larger than MaxBytes without
// reading it whole. It is the one place module bytes come from: serve
// (--module and --config), every reload, validate, lock, inspect and call
// all resolve through it. ResolveFile reads files; Verified reads files
// and OCI references and checks signatures; other sources plug in by
// wrapping one (Builtin): handle the references you know, pass the others
// on. A Resolver that cannot check what the policy asks refuses the
// module: nothing is loaded unchecked.
type Resolver func(ctx context.Context, req Request) (Module, error)

// ResolveFile reads a module file. A reference with a scheme (NAME://) is
// refused: no other source is configured; so is a policy that requires a
// signature (use Verified).
func ResolveFile(_ context.Context, req Request) (Module, error) {
	path, isFile := req.Ref.Path()
	if !isFile {
		scheme, _, _ := strings.Cut(string(req.Ref), "://")
		return Module{}, fmt.Errorf("module %s: %s:// references are not supported here: give the path of a .wasm file", req.Ref, scheme)
	}
	f, err := hostfile.Open(path) // a regular file, or refused without blocking
	if err != nil {
		return Module{}, fmt.Errorf("open module: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > int64(req.MaxBytes) {
		return Module{}, tooLarge(fi.Size(), req.MaxBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(req.MaxBytes)+1))
	if err != nil {
		return Module{}, fmt.Errorf("read module %s: %w", path, err)
	}
	if len(b) > req.MaxBytes {
		return Module{}, tooLarge(int64(len(b)), req.MaxBytes)
	}
	m := NewModule(req.Ref, b)
	m.Watch = path
	if err := checkUnsigned(req, m); err != nil {
		return Module{}, err
	}
	return m, nil
}

// NewModule returns the module of wasm, with its digest.
func NewModule(ref config.ModuleRef, wasm []byte) Module {
	sum := sha256.Sum256(wasm)
	return Module{Ref: ref, Wasm: wasm, Digest: "sha256:" + hex.EncodeToString(sum[:])}
}

// Builtin resolves the references in modules (such as builtin://files) to
// the bytes given, and passes every other reference to next. A built-in
// module carries no signature: a policy that requires one refuses it.
func Builtin(modules map[config.ModuleRef][]byte, next Resolver) Resolver {
	return func(ctx context.Context, req Request) (Module, error) {
		wasm, ok := modules[req.Ref]
		if !ok {
			return next(ctx, req)
		}
		if len(wasm) > req.MaxBytes {
			return Module{}, tooLarge(int64(len(wasm)), req.MaxBytes)
		}
		m := NewModule(req.Ref, wasm)
		if err := checkUnsigned(req, m); err != nil {
			return Module{}, err
		}
		return m, nil
	}
}

// checkUnsigned checks a module that has no signature to offer against the
// request: its pin, and a policy that wants a pin or a signature.
func checkUnsigned(req Request, m Module) error {
	if err := checkPin(req, m); err != nil {
		return err
	}
	if req.Policy.RequiresDigest() && req.SHA256 == "" {
		return fmt.Errorf("%w: %s has no sha256 pin and the policy requires one: add \"sha256\": %q to its entry (after checking it is the module you mean)",
			sigpolicy.ErrNotPinned, req.Ref, strings.TrimPrefix(m.Digest, "sha256:"))
	}
	if req.Policy.RequiresSignature() {
		return fmt.Errorf("%w: %s carries no signature here, and the policy wants a signature by %s: serve it through a resolver that verifies signatures, or give its entry a policy without signers",
			sigpolicy.ErrUnsigned, req.Ref, req.Policy.Wanted())
	}
	return nil
}

// checkPin refuses a module whose bytes are not the ones its pin names.
func checkPin(req Request, m Module) error {
	if req.SHA256 != "" && m.Digest != req.SHA256 {
		return fmt.Errorf("%w: %s is %s, the pin says %s: the bytes changed since they were pinned; check where they come from, then update the pin (mcp-wasm lock)", modsource.ErrPin, req.Ref, m.Digest, req.SHA256)
	}
	return nil
}

func tooLarge(size int64, limit int) error {
	return fmt.Errorf("%w: module is %d bytes, limit is %d: raise the module size limit or shrink the module (strip symbols: -ldflags='-s -w', -Wl,--strip-all)", runtime.ErrModuleTooLarge, size, limit)
}
