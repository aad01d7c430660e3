// Package filesprov is the logic of the files provider (guests/files): the
// regular files of one granted directory as read-only file:/// resources.
// It is plain Go on io/fs, so it runs in the wasm guest, natively in
// benchmarks, and in host tests against a temporary directory.
package filesprov

import (
	"context"
	"io/fs"
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
	uriPrefix = scheme + ":///"
	// defaultMaxFileBytes caps a read when max_file_bytes is not granted.
	defaultMaxFileBytes = 1 << 20
)

// files serves the regular files of fsys, whose root the guest sees at
// mount. List, Read, Templates and Complete are stateless; Changes keeps a
// snapshot of the listable paths under mu.
type files struct {
	fsys     fs.FS
	mount    string
	pageSize int

	mu   sync.Mutex
	snap *snapshot
}

func newFiles(fsys fs.FS, mount string) *files {
	return &files{fsys: fsys, mount: mount, pageSize: pageSize}
}

func (f *files) Describe() abi.Describe {
	return abi.Describe{
		Name:        "files",
		Version:     "1.0.0",
		Title:       "Files",
		Description: "Read-only regular files of the directory the operator grants, as file:/// resources.",
		URISpace:    []abi.URIRoot{{Scheme: scheme}},
		Requests: &abi.Requests{
			Filesystem: []abi.FSRequest{{Path: f.mount, Reason: "the directory whose files are served, read-only"}},
			Config: []abi.ConfigRequest{
				{Key: keyShowHidden, Reason: `"true" also serves names starting with "." (including .git)`},
				{Key: keyMaxFileBytes, Reason: "largest file read returns, in bytes (default 1048576)"},
			},
		},
	}
}

// options are the operator's settings for one call.
type options struct {
	showHidden bool
}

func readOptions(ctx context.Context) options {
	v, ok := mcpw.Config(ctx, keyShowHidden)
	return options{showHidden: ok && strings.EqualFold(strings.TrimSpace(v), "true")}
}

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
	if !ok || strings.TrimSpace(v) == "" {
		return defaultMaxFileBytes, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n <= 0 {
		return 0, mcpw.Internal("config %s=%q is not a byte count: set it to a positive integer such as 1048576", keyMaxFileBytes, v)
	}
	return n, nil
}

// New returns the files provider serving the regular files of fsys, whose
// root the guest sees at mount (the guest path of the operator's grant).
func New(fsys fs.FS, mount string) mcpw.Provider { return newFiles(fsys, mount) }
