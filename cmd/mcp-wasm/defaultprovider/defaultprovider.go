// Package defaultprovider embeds the files provider (guests/files) built to
// wasm, which `mcp-wasm serve` runs when no --module is given. The bytes are
// reproducible: `make default-provider` rebuilds them from source, and a test
// checks the committed bytes match a fresh build when the Go version that
// built them is the one running the test.
package defaultprovider

import (
	_ "embed"
	"strings"
)

//go:embed files.wasm
var wasm []byte

//go:embed files.wasm.go-version
var goVersion string

// Wasm returns the embedded files provider module.
func Wasm() []byte { return wasm }

// GoVersion is the Go toolchain that built the embedded module.
func GoVersion() string { return strings.TrimSpace(goVersion) }
