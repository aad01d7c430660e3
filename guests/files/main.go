// Command files is the default mcp-wasm provider: read-only access to the
// files of one directory the operator grants, mounted at /data. Every
// regular file becomes a file:/// resource named by its path relative to
// the mount; list pages through them, read returns text or base64, the
// file:///{+path} template completes paths, and changes maps changed guest
// paths to URIs.
//
// It refuses to follow symbolic links (even those that stay inside the
// directory), to serve hidden files (names starting with ".") unless
// config show_hidden is "true", to read files over max_file_bytes (default
// 1 MiB), and any URI with "..", encoded separators, backslashes or NUL.
// Named pipes, sockets, devices and files it cannot read are skipped, each
// with a log line naming it; they never break a listing. It never writes.
package main

import (
	"os"

	"github.com/mcp-wasm/mcp-wasm/guests/files/filesprov"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// mount is the guest path the operator's directory is mounted at.
const mount = "/data"

func init() { mcpw.Register(filesprov.New(os.DirFS(mount), mount)) }

// main is never run: the module is built as a reactor (-buildmode=c-shared).
func main() {}
