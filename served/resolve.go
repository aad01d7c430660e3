package served

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/config"
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
}

// Resolver returns the bytes of the module ref names, refusing one larger
// than maxBytes without reading it whole. It is the one place module bytes
// come from: serve (--module and --config), every reload, validate, inspect
// and call all resolve through it. ResolveFile reads files; other sources
// (an OCI registry, a content store) and digest pinning plug in by wrapping
// it: handle the references you know, pass the others on.
type Resolver func(ctx context.Context, ref config.ModuleRef, maxBytes int) (Module, error)

// ResolveFile reads a module file. A reference with a scheme (NAME://) is
// refused: no other source is configured.
func ResolveFile(_ context.Context, ref config.ModuleRef, maxBytes int) (Module, error) {
	path, isFile := ref.Path()
	if !isFile {
		scheme, _, _ := strings.Cut(string(ref), "://")
		return Module{}, fmt.Errorf("module %s: %s:// references are not supported here: give the path of a .wasm file", ref, scheme)
	}
	f, err := os.Open(path)
	if err != nil {
		return Module{}, fmt.Errorf("open module: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > int64(maxBytes) {
		return Module{}, tooLarge(fi.Size(), maxBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(maxBytes)+1))
	if err != nil {
		return Module{}, fmt.Errorf("read module %s: %w", path, err)
	}
	if len(b) > maxBytes {
		return Module{}, tooLarge(int64(len(b)), maxBytes)
	}
	m := NewModule(ref, b)
	m.Watch = path
	return m, nil
}

// NewModule returns the module of wasm, with its digest.
func NewModule(ref config.ModuleRef, wasm []byte) Module {
	sum := sha256.Sum256(wasm)
	return Module{Ref: ref, Wasm: wasm, Digest: "sha256:" + hex.EncodeToString(sum[:])}
}

// Builtin resolves the references in modules (such as builtin://files) to
// the bytes given, and passes every other reference to next.
func Builtin(modules map[config.ModuleRef][]byte, next Resolver) Resolver {
	return func(ctx context.Context, ref config.ModuleRef, maxBytes int) (Module, error) {
		wasm, ok := modules[ref]
		if !ok {
			return next(ctx, ref, maxBytes)
		}
		if len(wasm) > maxBytes {
			return Module{}, tooLarge(int64(len(wasm)), maxBytes)
		}
		return NewModule(ref, wasm), nil
	}
}

func tooLarge(size int64, limit int) error {
	return fmt.Errorf("%w: module is %d bytes, limit is %d: raise the module size limit or shrink the module (strip symbols: -ldflags='-s -w', -Wl,--strip-all)", runtime.ErrModuleTooLarge, size, limit)
}
