// Command git is the git provider: the repositories in the directories
// the operator grants, read-only, as git:// resources (files at any
// branch, tag or commit, trees, logs, commits with their diffs), live
// when refs move. It reads the object store itself (package gitobj): no
// git binary, nothing executed, nothing written. See package gitprov and
// README.md.
package main

import (
	"math"
	"runtime/debug"

	"github.com/mcp-wasm/mcp-wasm/guests/files/filesprov"
	"github.com/mcp-wasm/mcp-wasm/guests/git/gitprov"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// The repositories are the directories the host preopened; an instance
// made only to describe the provider has none.
func init() {
	// The reader keeps what it read (objects, parsed trees, commits): a
	// live heap of megabytes that Go's default collector would mark again
	// after every few hundred small reads. Where the host gives the
	// collector the memory limit (GOMEMLIMIT, which mcp-wasm sets to three
	// quarters of the guest's), collect four times less often: the limit,
	// not the percentage, then bounds the heap.
	if debug.SetMemoryLimit(-1) != math.MaxInt64 {
		debug.SetGCPercent(400)
	}
	var roots []gitprov.Root
	for _, r := range filesprov.Preopens() {
		roots = append(roots, gitprov.Root{Path: r.Path, FS: newDirFS(r.Path)})
	}
	mcpw.Register(gitprov.New(roots...))
}

// main is never run: the module is built as a reactor (-buildmode=c-shared).
func main() {}
