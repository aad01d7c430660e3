// Command sqlite is the SQLite provider: the schema of the SQLite databases
// the operator grants (tables, views, indexes and triggers: each one's
// CREATE statement and a JSON description of its columns and keys), read
// with its own reader of the file format, so that no SQL runs, under
// sqlite://NAME/ URIs. Row samples are off unless the operator sets config
// rows. See package sqliteprov and guests/sqlite/README.md.
package main

import (
	"github.com/mcp-wasm/mcp-wasm/guests/files/filesprov"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
	"github.com/mcp-wasm/mcp-wasm/guests/sqlite/sqliteprov"
)

// The directories are the ones the host preopened (filesprov.Preopens, the
// files provider's reading of them); an instance made only to describe the
// provider has none.
func init() {
	var dirs []string
	for _, r := range filesprov.Preopens() {
		dirs = append(dirs, r.Path)
	}
	mcpw.Register(sqliteprov.New(dirs...))
}

// main is never run: the module is built as a reactor (-buildmode=c-shared).
func main() {}
