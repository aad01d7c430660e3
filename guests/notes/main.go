// Command notes is an example mcp-wasm provider: a read-only handbook of
// short markdown notes about mcp-wasm, served under the notes: scheme. It
// shows every operation of the Go SDK except changes: a paginated list,
// two URI templates, reads of one note or of every note with a tag, and
// completion of both template arguments.
//
// It needs no grants: it reads no files, config, network or clock.
package main

import "github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"

func init() { mcpw.Register(newNotes(catalog)) }

// main is never run: the module is built as a reactor (-buildmode=c-shared).
func main() {}
