package runtime

import (
	"errors"

	"github.com/mcp-wasm/mcp-wasm/runtime/internal/errs"
)

// Load errors. Every error from Runtime.Load wraps exactly one of these, and
// its text names the problem and the fix.
var (
	// ErrModuleTooLarge: the module is bigger than ProviderConfig.WithModuleSizeLimit.
	ErrModuleTooLarge = errors.New("module too large")
	// ErrNotModule: the bytes are not a WebAssembly core module (garbage, a
	// component-model binary, a truncated file).
	ErrNotModule = errors.New("not a WebAssembly core module")
	// ErrForbiddenImport: the module imports something the host does not
	// provide to it (an unknown module, sockets, a filesystem without a grant).
	ErrForbiddenImport = errors.New("forbidden import")
	// ErrMissingExport: a required export is absent or has the wrong signature.
	ErrMissingExport = errors.New("missing or malformed export")
	// ErrABIVersion: the module targets an ABI version this host does not speak.
	ErrABIVersion = errors.New("unsupported ABI version")
	// ErrLimit: the module is over one of the host's structural limits
	// (functions, locals, body size, tables, ...; see abi/ABI.md) or its
	// minimum memory is over the provider's memory limit.
	ErrLimit = errors.New("module over a host limit")
	// ErrCompile: wazero could not compile the module (or compilation timed
	// out), or it uses a WebAssembly feature the host does not enable.
	ErrCompile = errs.ErrCompile
	// ErrInit: _initialize or describe failed; also wraps the abi fault kind.
	ErrInit = errors.New("provider initialization failed")
	// ErrConfig: a Config or ProviderConfig value is invalid.
	ErrConfig = errs.ErrConfig
)
