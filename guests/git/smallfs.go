package main

import (
	"io/fs"
	"os"
	"path"
	"syscall"

	"github.com/mcp-wasm/mcp-wasm/guests/git/gitobj"
)

// dirFS is os.DirFS(dir) that also reads small files (refs) with the bare
// system calls: in wasm that is path_open, fd_read and fd_close, where an
// *os.File adds two more host calls to set up its non-blocking mode.
type dirFS struct {
	fs.FS
	dir string
}

var _ gitobj.SmallFileFS = dirFS{}

func newDirFS(dir string) dirFS { return dirFS{FS: os.DirFS(dir), dir: dir} }

// ReadSmallFile implements gitobj.SmallFileFS.
func (d dirFS) ReadSmallFile(name string, buf []byte) (int, error) {
	if !fs.ValidPath(name) {
		return 0, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	fd, err := syscall.Open(path.Join(d.dir, name), syscall.O_RDONLY, 0)
	if err != nil {
		return 0, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	n, err := syscall.Read(fd, buf)
	if err != nil {
		return 0, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return n, nil
}
