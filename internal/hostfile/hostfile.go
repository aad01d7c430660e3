// Package hostfile opens the files the host reads on an operator's or a
// provider author's behalf (modules, signature bundles, config files,
// token, certificate and key files, trusted roots, what the module store
// and the caches hold) and checks the directories it keeps executable code
// in. It refuses, without blocking, anything that is not a regular file:
// open(2) of a FIFO waits for a writer, in the kernel, where no deadline or
// signal handler of the host reaches it, and open(2) of a device can act.
// It refuses a cache directory that others can write to or that is a
// symlink.
//
// It imports nothing of the module: every package that opens a file for
// the host uses it, so there is one rule and one error for all of them.
package hostfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNotRegular is the error of a path that names something other than a
// regular file (a FIFO, a device, a socket, a directory).
var ErrNotRegular = errors.New("not a regular file")

// Open opens path for reading if it is a regular file. It opens it
// non-blocking and without acquiring a terminal (openFlags), checks what it
// opened with fstat, and closes and refuses anything else with an error
// that names the path, what it is, and the fix. A symlink to a regular
// file is followed, as os.Open does: the operator named it.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path,
			Err: fmt.Errorf("%w (%s): give the path of a regular file", ErrNotRegular, kind(fi.Mode()))}
	}
	return f, nil
}

// ReadFile reads the whole regular file at path (Open), refusing one of
// more than limit bytes before reading it, and one that grew past limit
// while read.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, larger than %d", path, fi.Size(), limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return b, nil
}

// PrivateDir creates dir (0700) if needed and returns its absolute path.
// It refuses a dir that is not a directory (a symlink to one included: who
// controls the link controls what the host runs) or that group or others
// can access, with an error that says what to do. Every command checks
// its cache directory with it before it reads or writes anything in it.
func PrivateDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("cache dir %q: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return "", fmt.Errorf("create cache dir %s: %w: choose another --cache-dir", abs, err)
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		return "", fmt.Errorf("cache dir %s: %w", abs, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("cache dir %s is not a directory (a symlink?): choose a real directory", abs)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("cache dir %s has mode %o; its files become executable code: run chmod 700 %s or choose another directory", abs, fi.Mode().Perm(), abs)
	}
	return abs, nil
}

// kind names what a non-regular file is, for the error.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "mode " + m.String()
}
