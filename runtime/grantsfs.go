package runtime

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// openGrant opens a granted host path for mounting. A directory becomes
// its os.Root's FS: every open resolves inside it, and a symlink or ".."
// that would leave it fails. A regular file becomes a one-file directory
// (fileFS) over an os.Root of the file's real parent directory. root is
// what the provider closes when it closes.
func openGrant(hostPath string) (fsys fs.FS, root *os.Root, err error) {
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
		return &treeFS{FS: root.FS(), root: root}, root, nil
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
		return &fileFS{root: root, hostName: filepath.Base(real), name: filepath.Base(hostPath)}, root, nil
	default:
		return nil, nil, fmt.Errorf("%w: granted path %s is neither a directory nor a regular file (%s): grant a directory or a regular file", ErrConfig, hostPath, fi.Mode().Type())
	}
}

// treeFS is a granted directory: root.FS() for metadata and listings, with
// opens that never touch a special file. Opening a FIFO blocks in the
// kernel, inside a host function that no deadline can interrupt; opening a
// device can act (a tape rewinds, a watchdog arms); opening a socket fails
// with an error that says nothing. So Open looks at what a name is before
// opening it, refuses anything but a regular file or a directory with
// errSpecialFile, and opens the rest non-blocking and checks again what it
// opened (the name may be swapped in between). It deliberately has no
// ReadFile, which would open the file without these checks.
//
// wazero's fs.FS adapter implements stat and lstat by opening the file, so
// a guest's stat of a special file is refused the same way: WASI preview 1
// has no file type for a FIFO or a socket, so there is no truthful answer to
// give, and a Go guest would take an unknown type for a regular file.
type treeFS struct {
	fs.FS
	root *os.Root
}

// errSpecialFile is how a special file in a granted tree is refused: the
// guest sees EPERM ("operation not permitted"), distinct from the EACCES
// of a file the host itself cannot read.
var errSpecialFile = fs.ErrPermission

func (t *treeFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	fi, err := t.root.Stat(name) // follows symlinks, inside the root only
	if err != nil {
		return nil, err
	}
	if !servable(fi) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errSpecialFile}
	}
	file, err := t.root.OpenFile(name, os.O_RDONLY|openSafe, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := file.Stat(); err != nil || !servable(fi) {
		_ = file.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: errSpecialFile}
	}
	return file, nil
}

// servable reports whether a granted tree serves fi: regular files and
// directories only.
func servable(fi fs.FileInfo) bool { return fi.Mode().IsRegular() || fi.IsDir() }

// Stat and ReadDir come from root.FS(): they never open a file's contents.
func (t *treeFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(t.FS, name) }

func (t *treeFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(t.FS, name) }

// fileFS is a read-only directory holding exactly one file, name, read
// from hostName in root. Every other name does not exist. The file is
// reopened on every open, so edits (including an editor's
// write-and-rename) are seen, and refused unless it is a regular file.
type fileFS struct {
	root     *os.Root
	hostName string
	name     string
}

func (f *fileFS) Open(name string) (fs.File, error) {
	switch {
	case !fs.ValidPath(name):
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	case name == ".":
		return &fileDir{fs: f}, nil
	case name != f.name:
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if fi, err := f.root.Stat(f.hostName); err == nil && !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errSpecialFile}
	}
	file, err := f.root.OpenFile(f.hostName, os.O_RDONLY|openSafe, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if fi, err := file.Stat(); err != nil || !fi.Mode().IsRegular() {
		_ = file.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: errSpecialFile}
	}
	return file, nil
}

// fileDir is the root directory of a fileFS.
type fileDir struct {
	fs   *fileFS
	done bool
}

func (d *fileDir) Stat() (fs.FileInfo, error) { return dirInfo{}, nil }
func (d *fileDir) Close() error               { return nil }
func (d *fileDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: ".", Err: errors.New("is a directory")}
}

// ReadDir lists the one file, if it is there and regular.
func (d *fileDir) ReadDir(n int) ([]fs.DirEntry, error) {
	var out []fs.DirEntry
	if !d.done {
		d.done = true
		if fi, err := d.fs.root.Stat(d.fs.hostName); err == nil && fi.Mode().IsRegular() {
			out = append(out, fs.FileInfoToDirEntry(namedInfo{FileInfo: fi, name: d.fs.name}))
		}
	}
	if n > 0 && len(out) == 0 {
		return nil, io.EOF
	}
	return out, nil
}

type namedInfo struct {
	fs.FileInfo
	name string
}

func (i namedInfo) Name() string { return i.name }

type dirInfo struct{}

func (dirInfo) Name() string       { return "." }
func (dirInfo) Size() int64        { return 0 }
func (dirInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o555 }
func (dirInfo) ModTime() time.Time { return time.Time{} }
func (dirInfo) IsDir() bool        { return true }
func (dirInfo) Sys() any           { return nil }
