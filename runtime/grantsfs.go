package runtime

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// openGrant opens a planned mount (see mountplan.go) as a rootFS (see
// rootfs.go) on an os.Root of its real host directory: every path resolves
// inside it, and a symlink or ".." that would leave it fails. A mount of
// single files serves only their names. closer is what the provider closes
// when it closes: the root and the directory descriptor stat uses.
func openGrant(m mountPlan) (fsys *rootFS, closer io.Closer, err error) {
	root, err := os.OpenRoot(m.host)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: open granted path %s: %w", ErrConfig, m.granted[0], err)
	}
	dir, err := root.Open(".")
	if err != nil {
		_ = root.Close()
		return nil, nil, fmt.Errorf("%w: open granted path %s: %w", ErrConfig, m.granted[0], err)
	}
	fsys = &rootFS{root: root, host: m.host, dirfd: int(dir.Fd())}
	if m.only != nil {
		fsys.only, fsys.onlyHost = m.only, make(map[string]string, len(m.only))
		for guest, host := range m.only {
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
