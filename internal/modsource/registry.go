package modsource

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcp-wasm/mcp-wasm/internal/oci"
	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy"
)

// fromRegistry resolves an oci:// reference through the store: a pinned
// reference already pulled is read offline; anything else is pulled.
func (r *Resolver) fromRegistry(ctx context.Context, req Request, pin string) (*Module, [][]byte, sigpolicy.Subject, error) {
	var subject sigpolicy.Subject
	ref, err := oci.ParseRef(req.Module)
	if err != nil {
		return nil, nil, subject, err
	}
	if req.Policy.RequiresDigest() && ref.Digest == "" {
		return nil, nil, subject, fmt.Errorf("%w: %s names a tag, which can move, and the policy requires a digest: pin it (mcp-wasm lock --config FILE, or write @sha256:... after the tag)", sigpolicy.ErrNotPinned, ref)
	}
	if r.store == nil {
		return nil, nil, subject, fmt.Errorf("%s: oci:// modules are kept in the module store under the cache directory, and it is disabled: give --cache-dir (or server.cacheDir)", ref)
	}
	p, offline, notes, err := r.locate(ctx, req, ref)
	if err != nil {
		return nil, nil, subject, err
	}
	wasm, err := r.store.Module(p.Manifest, req.MaxSize)
	if errors.Is(err, oci.ErrDigest) {
		// Changed on disk (and removed by Read): fetch it again.
		if p, err = r.client.Pull(ctx, p.Ref, r.store, req.MaxSize); err == nil {
			wasm, err = r.store.Module(p.Manifest, req.MaxSize)
		}
	}
	if err != nil {
		return nil, nil, subject, fmt.Errorf("%s: %w", ref, err)
	}
	var bundles [][]byte
	for _, d := range p.Bundles {
		if b, err := r.store.Read(d, sigpolicy.MaxBundleSize); err == nil {
			bundles = append(bundles, b)
		}
	}
	pinned := p.Ref
	m := &Module{Wasm: wasm, Digest: oci.Digest(wasm), Source: pinned.String(), Ref: &pinned,
		Offline: offline, Annotations: p.Manifest.Annotations, Notes: notes}
	if p.ReferrersErr != nil {
		m.Notes = append(m.Notes, fmt.Sprintf("signatures attached to %s could not all be read: %v", pinned, p.ReferrersErr))
	}
	subject = sigpolicy.Subject{Digest: pinned.Digest, What: fmt.Sprintf("%s (manifest %s)", ref, pinned.Digest)}
	return m, bundles, subject, nil
}

// locate finds ref in the store or the registry; offline is set when
// the registry was not (successfully) asked.
func (r *Resolver) locate(ctx context.Context, req Request, ref oci.Ref) (p *oci.Pulled, offline bool, notes []string, err error) {
	if ref.Digest != "" && !req.Refresh {
		p, err := oci.Local(r.store, ref, req.MaxSize)
		// Signatures may have been attached since the pull: ask once.
		if err == nil && !(len(p.Bundles) == 0 && req.Policy.RequiresSignature()) {
			return p, true, nil, nil
		}
	}
	p, err = r.client.Pull(ctx, ref, r.store, req.MaxSize)
	if err == nil {
		return p, false, nil, nil
	}
	if !errors.Is(err, oci.ErrUnreachable) {
		return nil, false, nil, err
	}
	local, lerr := oci.Local(r.store, ref, req.MaxSize)
	if lerr != nil {
		return nil, false, nil, err
	}
	if ref.Digest == "" {
		notes = append(notes, fmt.Sprintf("registry unreachable: using %s, the digest %s had at its last pull (pin it to stop asking: mcp-wasm lock)", local.Ref, ref))
	}
	return local, true, notes, nil
}
