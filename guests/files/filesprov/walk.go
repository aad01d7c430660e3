package filesprov

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// visitFunc receives a listable regular file and returns false to stop.
type visitFunc func(rel string, d fs.DirEntry) bool

// listable reports whether a visible regular file can be listed: its path
// must be valid for fs.FS (which rules out names that are not UTF-8, as
// io/fs cannot open them) and its escaped path must fit a cursor.
func listable(rel string) bool { return fs.ValidPath(rel) && len(escapePath(rel)) <= maxEscapedPath }

// walkAfter visits the listable regular files of the tree in walk order
// (fs.ReadDir order at every level, parents before children) that come
// after the file after ("" = from the start). It reads only the
// directories on after's path and those past it, so resuming a listing
// never re-walks the pages before it.
func (f *files) walkAfter(ctx context.Context, opts options, after string, visit visitFunc) error {
	ctx, done := withSkipLog(ctx)
	defer done()
	var rest []string
	if after != "" {
		rest = strings.Split(after, "/")
	}
	_, err := f.walkDir(ctx, opts, ".", rest, visit)
	return err
}

// walkDir walks dir; after holds the remaining components of the resume
// point inside dir (nil = everything). It returns false once visit stops.
func (f *files) walkDir(ctx context.Context, opts options, dir string, after []string, visit visitFunc) (bool, error) {
	entries, err := f.readDir(ctx, dir)
	if err != nil {
		if dir == "." {
			return false, f.rootError(err)
		}
		logSkip(ctx, mcpw.LevelWarn, "skip directory %s and everything in it: %v", dir, err)
		return true, nil
	}
	start := 0
	if len(after) > 0 {
		start = sort.Search(len(entries), func(i int) bool { return entries[i].Name() >= after[0] })
	}
	for i := start; i < len(entries); i++ {
		e := entries[i]
		var sub []string
		if len(after) > 0 && e.Name() == after[0] {
			if !e.IsDir() {
				continue // the resume point itself, or a file before it
			}
			sub = after[1:]
		}
		more, err := f.visitEntry(ctx, opts, join(dir, e.Name()), e, sub, visit)
		if err != nil || !more {
			return more, err
		}
	}
	return true, nil
}

func (f *files) visitEntry(ctx context.Context, opts options, rel string, e fs.DirEntry, after []string, visit visitFunc) (bool, error) {
	switch {
	case !opts.visible(e.Name()):
		return true, nil
	case e.Type()&fs.ModeSymlink != 0:
		return true, nil // never followed, never listed, not worth a line each
	case e.IsDir():
		if len(escapePath(rel)) >= maxEscapedPath {
			return true, nil // nothing below can be listed
		}
		return f.walkDir(ctx, opts, rel, after, visit)
	case !e.Type().IsRegular():
		logSkip(ctx, mcpw.LevelInfo, "skip %s: a %s, not a regular file (only regular files are served)", rel, kindOf(e.Type()))
	case listable(rel):
		return visit(rel, e), nil
	}
	return true, nil
}

// kindOf names a file type for log lines.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m.IsDir():
		return "directory"
	case m.IsRegular():
		return "regular file"
	}
	return "special file"
}

// walkTree visits every listable regular file under the directory rel.
func (f *files) walkTree(ctx context.Context, opts options, rel string, visit visitFunc) error {
	ctx, done := withSkipLog(ctx)
	defer done()
	_, err := f.walkDir(ctx, opts, rel, nil, visit)
	return err
}

// rootError is the failure to read the mount itself: a missing grant, or
// a granted directory the host cannot read. (A bad entry inside it never
// gets here: readDir skips it.)
func (f *files) rootError(err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return mcpw.Internal("read directory %s: %v: the granted directory is not readable by mcp-wasm: make it readable by the user mcp-wasm runs as", f.mount, err)
	}
	return mcpw.Internal("read directory %s: %v: grant the files provider a directory to mount at %s", f.mount, err, f.mount)
}

func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return path.Join(dir, name)
}

// errLink marks a path that goes through a symbolic link.
var errLink = errors.New("a symbolic link is on the way (links are not followed)")

// lstatChain returns rel's own FileInfo after checking, in the directory
// entries themselves, that no component of rel is a symbolic link and that
// every parent is a directory. fs.Lstat cannot tell: under WASI, wazero
// answers lstat by following the link (its fs.FS adapter has no lstat),
// and the host's mount follows links that stay inside the granted
// directory. Without this, a visible name linking to a hidden file, or to
// a file in a hidden directory, would serve it.
func (f *files) lstatChain(rel string) (fs.FileInfo, error) {
	if rel == "." {
		return fs.Stat(f.fsys, ".")
	}
	parts := strings.Split(rel, "/")
	dir := "."
	for i, name := range parts {
		e, err := f.entry(dir, name)
		if err != nil {
			return nil, err
		}
		p := join(dir, name)
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			return nil, &fs.PathError{Op: "lstat", Path: p, Err: errLink}
		case i == len(parts)-1:
			return e.Info()
		case !e.IsDir():
			return nil, &fs.PathError{Op: "lstat", Path: p, Err: fs.ErrNotExist}
		}
		dir = p
	}
	return nil, &fs.PathError{Op: "lstat", Path: rel, Err: fs.ErrNotExist} // unreachable: parts is not empty
}

// maxEntryFailures bounds the failed reads in a row while looking for an
// entry, so that a directory whose reading always fails cannot loop.
const maxEntryFailures = 1024

// entry finds name among the entries of dir, reading them in batches: it
// costs a read of dir up to name. An entry that cannot be looked at (a
// pipe or a socket, see readDir) fails only its batch, and is answered by
// its own stat's error.
func (f *files) entry(dir, name string) (fs.DirEntry, error) {
	d, err := f.fsys.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	rd, ok := d.(fs.ReadDirFile)
	if !ok {
		return nil, &fs.PathError{Op: "lstat", Path: dir, Err: fs.ErrNotExist}
	}
	for failures := 0; failures < maxEntryFailures; {
		batch, err := rd.ReadDir(256)
		for _, e := range batch {
			if e.Name() == name {
				return e, nil
			}
		}
		switch {
		case err == nil && len(batch) == 0, errors.Is(err, io.EOF):
			failures = maxEntryFailures
		case err != nil && len(batch) == 0:
			failures++
		default:
			failures = 0
		}
	}
	p := join(dir, name)
	if _, err := fs.Lstat(f.fsys, p); err != nil {
		return nil, err // a special file: the host's refusal says so
	}
	return nil, &fs.PathError{Op: "lstat", Path: p, Err: fs.ErrNotExist}
}
