package runtime

import (
	"fmt"
	"io/fs"
	"os"
)

// openGrant opens a planned mount (see mountplan.go) as a rootFS (see
// rootfs.go) on an os.Root of its real host directory: every path resolves
// inside it, and a symlink or ".." that would leave it fails. A mount of
// single files serves only their names. root is what the provider closes
// when it closes.
func openGrant(m mountPlan) (fsys *rootFS, root *os.Root, err error) {
	root, err = os.OpenRoot(m.host)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: open granted path %s: %w", ErrConfig, m.granted[0], err)
	}
	fsys = &rootFS{root: root, host: m.host}
	if m.only != nil {
		fsys.only, fsys.onlyHost = m.only, make(map[string]string, len(m.only))
		for guest, host := range m.only {
			fsys.onlyHost[host] = guest
		}
	}
	return fsys, root, nil
}

// servable reports whether a granted tree serves fi: regular files and
// directories only.
func servable(fi fs.FileInfo) bool { return fi.Mode().IsRegular() || fi.IsDir() }
