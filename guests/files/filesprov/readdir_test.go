package filesprov

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// wasiFS is a directory as a Go guest sees it through WASI: listing a
// directory looks at each entry, and an entry that cannot be looked at
// fails the listing (os.ReadDir) or one ReadDir call on the open directory,
// which then goes on after it (*os.File). Names can always be read.
type wasiFS struct {
	fstest.MapFS
	refused map[string]error // entry -> error of looking at it
	broken  bool             // every ReadDir of a directory fails, with no progress
}

func (w *wasiFS) ReadDir(name string) ([]fs.DirEntry, error) {
	d, err := w.Open(name)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	entries, err := d.(fs.ReadDirFile).ReadDir(-1)
	if err != nil {
		return nil, err
	}
	return entries, nil
}

func (w *wasiFS) Lstat(name string) (fs.FileInfo, error) {
	if err := w.refused[name]; err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	return fs.Stat(w.MapFS, name)
}

func (w *wasiFS) Open(name string) (fs.File, error) {
	f, err := w.MapFS.Open(name)
	if err != nil {
		return nil, err
	}
	if fi, _ := f.Stat(); fi != nil && fi.IsDir() {
		entries, _ := fs.ReadDir(w.MapFS, name)
		return &wasiDir{File: f, fs: w, dir: name, entries: entries}, nil
	}
	return f, nil
}

type wasiDir struct {
	fs.File
	fs      *wasiFS
	dir     string
	entries []fs.DirEntry
	pos     int
}

func (d *wasiDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if d.fs.broken {
		return nil, &fs.PathError{Op: "readdirent", Path: d.dir, Err: errors.New("I/O error")}
	}
	if n > 0 && d.pos == len(d.entries) {
		return nil, io.EOF
	}
	var out []fs.DirEntry
	for d.pos < len(d.entries) && (n <= 0 || len(out) < n) {
		e := d.entries[d.pos]
		d.pos++
		if err := d.fs.refused[join(d.dir, e.Name())]; err != nil {
			return out, &fs.PathError{Op: "fstatat", Path: d.dir, Err: err}
		}
		out = append(out, e)
	}
	return out, nil
}

func (d *wasiDir) Readdirnames(int) ([]string, error) {
	names := make([]string, len(d.entries))
	for i, e := range d.entries {
		names[i] = e.Name()
	}
	return names, nil
}

func TestReadDirSkipsWhatCannotBeLookedAt(t *testing.T) {
	w := &wasiFS{
		MapFS: fstest.MapFS{
			"a": {}, "b/c": {}, "pipe": {}, "pipe2": {}, "sock": {}, "gone": {}, "z": {},
		},
		refused: map[string]error{
			"pipe": fs.ErrPermission, "pipe2": fs.ErrPermission, "sock": errors.New("I/O error"),
		},
	}
	h := &harness{t: t, p: newFiles([]Root{{Path: testMount, FS: w}}), host: &mcpw.MapHost{}}
	_, err := fs.ReadDir(w, ".")
	require.Error(t, err, "the fake fails a listing like WASI does")

	// "gone" is listed by name but vanished by the time it is looked at.
	w.refused["gone"] = fs.ErrNotExist
	names, _ := h.listAll()
	require.Equal(t, []string{"a", "b/c", "z"}, names)
	logs := h.host.Logs()
	for name, fragment := range map[string]string{
		"pipe":  "special file (named pipe, socket or device), which the host refuses",
		"pipe2": "special file",
		"sock":  "I/O error",
		"gone":  "changed while its directory was read",
	} {
		require.True(t, slices.ContainsFunc(logs, func(l mcpw.LogEntry) bool {
			return strings.HasPrefix(l.Message, "skip /data/"+name+": ") && strings.Contains(l.Message, fragment)
		}), "no log line for %s in %v", name, logs)
	}
}

func TestReadDirBrokenDirectoryEnds(t *testing.T) {
	w := &wasiFS{MapFS: fstest.MapFS{"a": {}, "d/x": {}}, broken: true}
	h := &harness{t: t, p: newFiles([]Root{{Path: testMount, FS: w}}), host: &mcpw.MapHost{}}
	e := h.fail("list", map[string]any{})
	require.Equal(t, "cannot read the granted directory /data: grant an existing directory", e.Message)
	require.Contains(t, h.host.Logs()[0].Message, "read directory /data: readdirent .: I/O error", "the cause is logged for the operator")
}

func TestSkipLinesAreBounded(t *testing.T) {
	w := &wasiFS{MapFS: fstest.MapFS{"a": {}}, refused: map[string]error{}}
	for i := range 3 * maxSkipLines {
		name := "sock" + strings.Repeat("x", i)
		w.MapFS[name] = &fstest.MapFile{}
		w.refused[name] = fs.ErrPermission
	}
	h := &harness{t: t, p: newFiles([]Root{{Path: testMount, FS: w}}), host: &mcpw.MapHost{}}
	names, _ := h.listAll()
	require.Equal(t, []string{"a"}, names)
	logs := h.host.Logs()
	require.Len(t, logs, maxSkipLines+1)
	require.Equal(t, fmt.Sprintf("skipped %d more entries that are not regular files or could not be read", 2*maxSkipLines), logs[maxSkipLines].Message)
}

// TestReadFindsEntriesPastSpecialFiles: an entry that cannot be looked at
// neither hides another file nor breaks a read, and a read never lists a
// directory.
func TestReadFindsEntriesPastSpecialFiles(t *testing.T) {
	w := &wasiFS{
		MapFS:   fstest.MapFS{"a": {Data: []byte("A")}, "pipe": {}, "sub/pipe": {}, "sub/z": {Data: []byte("Z")}},
		refused: map[string]error{"pipe": fs.ErrPermission, "sub/pipe": fs.ErrPermission},
	}
	h := &harness{t: t, p: newFiles([]Root{{Path: testMount, FS: w}}), host: &mcpw.MapHost{}}
	require.Equal(t, "Z", *h.read("file:///data/sub/z").Contents[0].Text)
	require.Equal(t, "A", *h.read("file:///data/a").Contents[0].Text)
	e := h.fail("read", map[string]string{"uri": "file:///data/sub/pipe"})
	require.Contains(t, e.Message, "special files are not served")

	w.broken = true
	require.Equal(t, "Z", *h.read("file:///data/sub/z").Contents[0].Text)
}
