package served

import (
	"context"
	"strings"
	"time"

	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/internal/modsource"
	"github.com/mcp-wasm/mcp-wasm/internal/oci"
)

// FetchTimeout bounds resolving one module through Verified: fetching its
// manifest, its bytes and its signatures, so that a registry that trickles
// bytes cannot hold a start or a reload forever (connecting is bounded at
// 10 s and the first byte of each answer at 30 s by the registry client).
const FetchTimeout = 5 * time.Minute

// Verified resolves module files and oci:// references through src
// (internal/modsource): a reference is pulled into the module store (or
// read from it, offline, once pinned and pulled), and every module is
// checked against its pin and its policy's signers, with the Sigstore
// bundles found beside a file (FILE.wasm.sigstore.json) or attached to the
// artifact in the registry. A reference with another scheme is refused as
// ResolveFile refuses it.
//
// # Security
//
// The bytes returned are the bytes checked; on any failure none are.
func Verified(src *modsource.Resolver) Resolver {
	return func(ctx context.Context, req Request) (Module, error) {
		if _, isFile := req.Ref.Path(); !isFile && !oci.IsRef(string(req.Ref)) {
			return ResolveFile(ctx, req) // its refusal of the scheme
		}
		ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
		defer cancel()
		m, err := src.Resolve(ctx, modsource.Request{Module: string(req.Ref), SHA256: req.SHA256,
			Policy: req.Policy, MaxSize: int64(req.MaxBytes), Refresh: req.Refresh, Signatures: req.Signatures})
		if err != nil {
			return Module{}, err
		}
		out := Module{Ref: req.Ref, Wasm: m.Wasm, Digest: m.Digest, Offline: m.Offline,
			Signatures: m.Signatures, Notes: m.Notes}
		if m.Ref != nil {
			out.Pinned = config.ModuleRef(m.Ref.String())
		} else {
			out.Watch = m.Source
		}
		if m.Signer != nil {
			out.Signer = m.Signer.String()
		}
		if err := checkPin(req, out); err != nil { // modsource checked it; the rule holds whatever the source
			return Module{}, err
		}
		return out, nil
	}
}

// ModuleHint names a module in messages until its describe names it: a
// file's base name, or a registry reference's repository and tag (or
// short digest), or the reference.
func ModuleHint(ref config.ModuleRef) string {
	if path, ok := ref.Path(); ok {
		return path[strings.LastIndexByte(path, '/')+1:]
	}
	if r, err := oci.ParseRef(string(ref)); err == nil {
		name := r.Repository[strings.LastIndexByte(r.Repository, '/')+1:]
		if r.Tag != "" {
			return name + ":" + r.Tag
		}
		return name + "@" + oci.ShortDigest(r.Digest)
	}
	return string(ref)
}
