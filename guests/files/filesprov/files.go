// Package filesprov is the logic of the files provider (guests/files): the
// regular files of the directories the operator grants as read-only
// resources named by their real file:// URIs. It is plain Go on io/fs, so
// it runs in the wasm guest, natively in benchmarks, and in host tests
// against temporary directories.
//
// The C files provider (guests/cfiles), the built-in default, implements
// the same behaviour byte for byte, and a differential test
// (guests/cfiles) holds the two to it. What they do:
//
//   - Roots. Every directory the host preopens whose name is an absolute,
//     clean, valid UTF-8 path without a backslash is a root, in byte order.
//     The host mounts a grant at its real path, so a root's files have
//     their real paths.
//   - URIs. A file's URI is file:// followed by its guest path, each
//     segment escaped as Go's url.PathEscape does (file:///home/me/a%20b.md;
//     on Windows file:///C:/Users/me/a.md).
//   - List. Every root in order, each walked in name order with a
//     directory's files right after it; only regular files are listed
//     (directories never are: a directory is not something to read), not
//     hidden ones (a path segment starting with ".") unless config
//     show_hidden is "true", never through a symbolic link, never special
//     files, never names that are not UTF-8 or hold a backslash (no URI of
//     theirs reads back), or whose escaped path does not
//     fit a cursor. A resource has its URI, its name (the path below its
//     root), its MIME type when its name tells it, its size and its
//     modification time. Pages hold 500; the cursor names the last file.
//   - Read. Text when the type is textual (or unknown and the bytes look
//     like text) and the bytes are UTF-8, else a blob; the MIME type is the
//     one list gives. A file over config max_file_bytes (default 1 MiB) is
//     listed with its size; reading it is refused with the setting that
//     raises the cap.
//   - Templates and completion. One template per root,
//     file:///ROOT/{+path}; completing path offers the entries of the
//     directory typed so far, directories with a trailing "/".
//   - Changes. Changed guest paths map to the URIs of the files at or
//     below them, then or now; the cursor is a hash of the set of listed
//     files.
//
// Error messages are the same in both providers, and never carry an
// operating system's error text (which differs between libcs); log lines
// may differ.
package filesprov

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// Config keys the provider reads.
const (
	keyShowHidden   = "show_hidden"
	keyMaxFileBytes = "max_file_bytes"
)

const (
	scheme    = "file"
	uriPrefix = scheme + "://"
	// defaultMaxFileBytes caps a read when max_file_bytes is not granted.
	defaultMaxFileBytes = 1 << 20
	// cacheTTLMillis is how long a client (and the host's read cache) may
	// reuse a list page or a read: about the time a change takes to be
	// announced (within a second, docs/live-resources.md). The C twin,
	// guests/cfiles, says the same.
	cacheTTLMillis = 1000
)

// files serves the regular files of its roots. List, Read, Templates and
// Complete are stateless; Changes keeps a snapshot of the listable paths
// under mu.
type files struct {
	roots    []*root
	skipped  []string // preopens that are not roots, for a log line
	pageSize int

	mu   sync.Mutex
	snap *snapshot
}

func newFiles(roots []Root) *files {
	f := &files{pageSize: pageSize}
	f.roots, f.skipped = makeRoots(roots)
	return f
}

// Describe is the same whatever is granted: the host may call it on an
// instance without mounts, and the operator reads it before granting.
func (f *files) Describe() abi.Describe {
	return abi.Describe{
		Name:        "files",
		Version:     "2.0.0",
		Title:       "Files",
		Description: "Read-only regular files of the directories the operator grants, named by their real file:// URIs.",
		URISpace:    []abi.URIRoot{{Scheme: scheme}},
		Requests: &abi.Requests{
			Filesystem: []abi.FSRequest{{Path: "/", Reason: "the directories (or single files) whose files are served, read-only, wherever the host mounts them"}},
			Config: []abi.ConfigRequest{
				{Key: keyShowHidden, Reason: `"true" also serves names starting with "." (including .git)`},
				{Key: keyMaxFileBytes, Reason: "largest file read returns, in bytes (default 1048576)"},
			},
		},
		Cache: &abi.CacheHint{TTLMs: cacheTTLMillis, Scope: abi.ScopePublic},
	}
}

// options are the operator's settings for one call.
type options struct {
	showHidden bool
}

func readOptions(ctx context.Context) options {
	v, ok := mcpw.Config(ctx, keyShowHidden)
	return options{showHidden: ok && strings.EqualFold(trimASCII(v), "true")}
}

// trimASCII trims ASCII spaces, tabs and line ends (not Unicode spaces:
// the C provider trims the same).
func trimASCII(s string) string { return strings.Trim(s, " \t\r\n") }

// visible reports whether a file or directory name is served.
func (o options) visible(name string) bool { return o.showHidden || !strings.HasPrefix(name, ".") }

// visiblePath reports whether every segment of a relative path is served.
func (o options) visiblePath(rel string) bool {
	if o.showHidden {
		return true
	}
	for seg := range strings.SplitSeq(rel, "/") {
		if !o.visible(seg) {
			return false
		}
	}
	return true
}

// maxFileBytes returns the read cap from config, or an error naming the fix.
func maxFileBytes(ctx context.Context) (int64, error) {
	v, ok := mcpw.Config(ctx, keyMaxFileBytes)
	if !ok || trimASCII(v) == "" {
		return defaultMaxFileBytes, nil
	}
	n, err := strconv.ParseInt(trimASCII(v), 10, 64)
	if err != nil || n <= 0 {
		return 0, mcpw.Internal("config %s is not a byte count: set it to a positive integer such as 1048576", keyMaxFileBytes)
	}
	return n, nil
}

// errNoRoots is every operation's answer when nothing is granted.
func errNoRoots() error {
	return mcpw.Internal("no directory is granted to the files provider: grant one (serve --allow-dir DIR, or grants.dirs in a config file)")
}

// New returns the files provider serving the regular files of roots.
func New(roots ...Root) mcpw.Provider { return newFiles(roots) }
