package filesprov

import (
	"context"
	"errors"
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
// io/fs cannot open them), hold no backslash (read refuses one, escaped
// or not: it is a separator on Windows, so such a URI could never be read
// back), and its escaped guest path must fit a cursor.
func (r *root) listable(rel string) bool {
	return fs.ValidPath(rel) && !strings.Contains(rel, "\\") && len(r.escFull(rel)) <= maxEscapedPath
}

// walkAfter visits the listable regular files of r in walk order
// (fs.ReadDir order at every level, parents before children) that come
// after the file after ("" = from the start). It reads only the
// directories on after's path and those past it, so resuming a listing
// never re-walks the pages before it.
func (f *files) walkAfter(ctx context.Context, opts options, r *root, after string, visit visitFunc) error {
	ctx, done := withSkipLog(ctx)
	defer done()
	var rest []string
	if after != "" {
		rest = strings.Split(after, "/")
	}
	_, err := f.walkDir(ctx, opts, r, ".", rest, visit)
	return err
}

// walkDir walks dir; after holds the remaining components of the resume
// point inside dir (nil = everything). It returns false once visit stops.
func (f *files) walkDir(ctx context.Context, opts options, r *root, dir string, after []string, visit visitFunc) (bool, error) {
	entries, err := f.readDir(ctx, r, dir)
	if err != nil {
		if dir == "." {
			mcpw.Logf(ctx, mcpw.LevelWarn, "read directory %s: %v", r.path, err)
			return false, rootError(r, err)
		}
		logSkip(ctx, mcpw.LevelWarn, "skip directory %s and everything in it: %v", r.full(dir), unwrapPath(err))
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
		more, err := f.visitEntry(ctx, opts, r, join(dir, e.Name()), e, sub, visit)
		if err != nil || !more {
			return more, err
		}
	}
	return true, nil
}

func (f *files) visitEntry(ctx context.Context, opts options, r *root, rel string, e fs.DirEntry, after []string, visit visitFunc) (bool, error) {
	switch {
	case !opts.visible(e.Name()):
		return true, nil
	case e.Type()&fs.ModeSymlink != 0:
		return true, nil // never followed, never listed, not worth a line each
	case e.IsDir():
		if len(r.escFull(rel)) >= maxEscapedPath {
			return true, nil // nothing below can be listed
		}
		return f.walkDir(ctx, opts, r, rel, after, visit)
	case !e.Type().IsRegular():
		logSkip(ctx, mcpw.LevelInfo, "skip %s: a %s, not a regular file (only regular files are served)", r.full(rel), kindOf(e.Type()))
	case r.listable(rel):
		return visit(rel, e), nil
	}
	return true, nil
}

// kindOf names a file type for messages.
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
func (f *files) walkTree(ctx context.Context, opts options, r *root, rel string, visit visitFunc) error {
	ctx, done := withSkipLog(ctx)
	defer done()
	_, err := f.walkDir(ctx, opts, r, rel, nil, visit)
	return err
}

// rootError is the failure to read a root itself: a granted directory the
// host cannot read, or one that is gone. (A bad entry inside it never gets
// here: readDir skips it.)
func rootError(r *root, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return mcpw.Internal("cannot read the granted directory %s: make it readable by the user mcp-wasm runs as", r.path)
	}
	return mcpw.Internal("cannot read the granted directory %s: grant an existing directory", r.path)
}

func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return path.Join(dir, name)
}

// errLink marks a path that goes through a symbolic link.
var errLink = errors.New("a symbolic link is on the way (links are not followed)")

// lstatChain returns rel's own FileInfo after checking, one lstat per
// component, that no component of rel is a symbolic link and that every
// parent is a directory. (The host's mount answers lstat without following
// a link; it follows links that stay inside the granted directory where
// the guest asks it to.) Without this, a visible name linking to a hidden
// file, or to a file in a hidden directory, would serve it.
func (r *root) lstatChain(rel string) (fs.FileInfo, error) {
	if rel == "." {
		return fs.Stat(r.fsys, ".")
	}
	for i := 0; ; {
		j := strings.IndexByte(rel[i:], '/')
		p := rel
		if j >= 0 {
			p = rel[:i+j]
		}
		info, err := fs.Lstat(r.fsys, p)
		switch {
		case err != nil:
			return nil, err
		case info.Mode()&fs.ModeSymlink != 0:
			return nil, &fs.PathError{Op: "lstat", Path: p, Err: errLink}
		case j < 0:
			return info, nil
		case !info.IsDir():
			return nil, &fs.PathError{Op: "lstat", Path: p, Err: fs.ErrNotExist}
		}
		i += j + 1
	}
}
