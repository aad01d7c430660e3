package rootfs

import (
	"errors"
	"fmt"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/errs"
	"io"
	"io/fs"
	"os"
)

// Open opens a planned mount (the root's mountplan.go: the real host
// directory, the names it serves if only is set, and the operator's path
// for messages) as a rootFS (see rootfs.go) on an os.Root of host: every
// path resolves inside it, and a symlink or ".." that would leave it
// fails. A mount of single files serves only their names. closer is what
// the provider closes when it closes: the root and the directory
// descriptor stat uses.
func Open(host string, only map[string]string, granted string) (fsys *rootFS, closer io.Closer, err error) {
	root, err := os.OpenRoot(host)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: open granted path %s: %w", errs.ErrConfig, granted, err)
	}
	dir, err := root.Open(".")
	if err != nil {
		_ = root.Close()
		return nil, nil, fmt.Errorf("%w: open granted path %s: %w", errs.ErrConfig, granted, err)
	}
	fsys = &rootFS{root: root, host: host, dirfd: int(dir.Fd())}
	if only != nil {
		fsys.only, fsys.onlyHost = only, make(map[string]string, len(only))
		for guest, host := range only {
			fsys.onlyHost[host] = guest
		}
	}
	return fsys, grantHandles{root, dir}, nil
}

// grantHandles close a mount's root and its directory.
type grantHandles struct {
	root *os.Root
	dir  *os.File
}

func (h grantHandles) Close() error { return errors.Join(h.dir.Close(), h.root.Close()) }

// servable reports whether a granted tree serves fi: regular files and
// directories only.
func servable(fi fs.FileInfo) bool { return fi.Mode().IsRegular() || fi.IsDir() }
