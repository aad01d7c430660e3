// Package mcpwasm holds the sources of the provider SDKs, embedded, so that
// `mcp-wasm new` writes a project that builds offline against the very SDK
// the binary was built with. It is only data: the cmd package reads it.
package mcpwasm

import "embed"

// SDK holds go.mod (for its go line), the abi package and its checkkit,
// the Go SDK with mcpwtest, the C SDK, the Rust crate and the
// AssemblyScript package. Test files are embedded too (a pattern cannot
// leave them out); `mcp-wasm new` skips them.
//
//go:embed go.mod abi/*.go abi/checkkit/*.go guests/go/mcpw/*.go guests/go/mcpw/mcpwtest/*.go
//go:embed guests/c/mcpw.h guests/c/mcpw.c guests/rust/Cargo.toml guests/rust/src/*.rs
//go:embed guests/assemblyscript/package.json guests/assemblyscript/index.ts guests/assemblyscript/assembly/*.ts
var SDK embed.FS
