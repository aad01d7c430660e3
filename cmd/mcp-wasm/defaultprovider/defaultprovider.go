// Package defaultprovider embeds the files provider in C (guests/cfiles)
// built to wasm, which `mcp-wasm serve` runs when no --module is given. The
// bytes are reproducible: `make default-provider` rebuilds them from source
// with clang and wasi-libc, and a test checks the committed bytes match a
// fresh build when the clang that built them is the one on the machine.
package defaultprovider

import (
	_ "embed"
	"strings"
)

//go:embed files.wasm
var wasm []byte

//go:embed files.wasm.clang-version
var clangVersion string

// Wasm returns the embedded files provider module.
func Wasm() []byte { return wasm }

// ClangVersion is the first line of `clang --version` of the compiler that
// built the embedded module.
func ClangVersion() string { return strings.TrimSpace(clangVersion) }
