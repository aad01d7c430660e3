package runtime

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// openGrant opens a granted host path for mounting, as a rootFS (see
// rootfs.go). A directory is an os.Root of it: every path resolves inside
// it, and a symlink or ".." that would leave it fails. A regular file is a
// one-file directory over an os.Root of the file's real parent directory,
// holding only that file under its granted name. root is what the provider
// closes when it closes.
func openGrant(hostPath string) (fsys *rootFS, root *os.Root, err error) {
	fi, err := os.Stat(hostPath)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: granted path: %w: grant an existing directory or file", ErrConfig, err)
	}
	switch {
	case fi.IsDir():
		root, err := os.OpenRoot(hostPath)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: open granted directory: %w", ErrConfig, err)
		}
		return &rootFS{root: root, host: hostPath}, root, nil
	case fi.Mode().IsRegular():
		// The operator named hostPath, so its symlinks are the operator's:
		// resolve them once, here. The guest can then reach only the name
		// in the real parent, and a symlink put there later stays inside it.
		real, err := filepath.EvalSymlinks(hostPath)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: granted file: %w", ErrConfig, err)
		}
		root, err := os.OpenRoot(filepath.Dir(real))
		if err != nil {
			return nil, nil, fmt.Errorf("%w: open the directory of granted file %s: %w", ErrConfig, hostPath, err)
		}
		return &rootFS{root: root, host: filepath.Dir(real), only: filepath.Base(hostPath), onlyHost: filepath.Base(real)}, root, nil
	default:
		return nil, nil, fmt.Errorf("%w: granted path %s is neither a directory nor a regular file (%s): grant a directory or a regular file", ErrConfig, hostPath, fi.Mode().Type())
	}
}

// servable reports whether a granted tree serves fi: regular files and
// directories only.
func servable(fi fs.FileInfo) bool { return fi.Mode().IsRegular() || fi.IsDir() }
