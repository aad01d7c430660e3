// Command files is the files provider in Go, an example of the Go SDK
// (the built-in default provider is its C twin, guests/cfiles, which
// behaves the same): read-only access to the regular files of every
// directory (or single file) the operator grants. The host mounts each
// grant at its real path, so every regular file becomes a resource named
// by its real file:// URI; list pages through them, read returns text or
// bytes, one file:///ROOT/{+path} template per root completes paths, and
// changes maps changed guest paths to URIs. See package filesprov.
//
// It refuses to follow symbolic links (even those that stay inside a
// granted directory), to serve hidden files (names starting with ".")
// unless config show_hidden is "true", to read files over max_file_bytes
// (default 1 MiB), and any URI with "..", encoded separators, backslashes
// or NUL. Named pipes, sockets, devices and files it cannot read are
// skipped, each with a log line naming it; they never break a listing. It
// never writes.
package main

import (
	"github.com/mcp-wasm/mcp-wasm/guests/files/filesprov"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// The roots are the directories the host preopened; an instance made only
// to describe the provider has none.
func init() { mcpw.Register(filesprov.New(filesprov.Preopens()...)) }

// main is never run: the module is built as a reactor (-buildmode=c-shared).
func main() {}
