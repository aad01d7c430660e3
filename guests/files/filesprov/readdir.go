package filesprov

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// namesFile is a directory that can list its names without looking at
// each entry (*os.File can).
type namesFile interface {
	Readdirnames(n int) ([]string, error)
}

// readDir returns the entries of dir sorted by name, skipping (with a log
// line naming each) the entries that cannot be looked at. It fails only
// when dir itself cannot be read.
//
// fs.ReadDir is one pass when the host gives each entry's type. But WASI
// preview 1 has no type for a named pipe or a socket, so Go's os.ReadDir
// stats such an entry; the host refuses that stat (it never opens a
// special file), and os.ReadDir then fails for the whole directory. Only
// then does readDir take the slow path, readDirTolerant, so one bad entry
// costs only itself.
func (f *files) readDir(ctx context.Context, r *root, dir string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(r.fsys, dir)
	if err == nil {
		return entries, nil
	}
	entries, skipped, terr := readDirTolerant(r.fsys, dir)
	if terr != nil {
		return nil, err
	}
	for _, name := range skipped {
		rel := join(dir, name)
		_, err := fs.Lstat(r.fsys, rel)
		full := r.full(rel)
		switch {
		case err == nil, errors.Is(err, fs.ErrNotExist):
			// Changed or gone since the directory was read: it will be
			// seen as it is next time.
			logSkip(ctx, mcpw.LevelDebug, "skip %s: it changed while its directory was read", full)
		case errors.Is(err, fs.ErrPermission):
			logSkip(ctx, mcpw.LevelInfo, "skip %s: %v: it is a special file (named pipe, socket or device), which the host refuses, or a file the host cannot read (only regular files are served)", full, unwrapPath(err))
		default:
			logSkip(ctx, mcpw.LevelWarn, "skip %s: %v", full, unwrapPath(err))
		}
	}
	return entries, nil
}

// readDirTolerant reads dir's entries one failure at a time: a failed
// ReadDir has consumed the entry it failed on (true of *os.File), so
// reading on continues after it. The names read first say what was
// skipped and bound the retries, so a directory that fails as a whole
// cannot loop. It fails when dir cannot be opened, its names read, or its
// entries read to the end.
func readDirTolerant(fsys fs.FS, dir string) (entries []fs.DirEntry, skipped []string, err error) {
	names, err := readNames(fsys, dir)
	if err != nil {
		return nil, nil, err
	}
	d, err := fsys.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	defer d.Close()
	rd, ok := d.(fs.ReadDirFile)
	if !ok {
		return nil, nil, errors.New("not a directory")
	}
	// Each failure consumes one entry: reading ends within len(names)+1
	// calls, or the directory itself is failing.
	for i := 0; ; i++ {
		batch, err := rd.ReadDir(-1)
		entries = append(entries, batch...)
		if err == nil {
			break
		}
		if i == len(names) {
			return nil, nil, err
		}
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		seen[e.Name()] = true
	}
	for _, n := range names {
		if !seen[n] {
			skipped = append(skipped, n)
		}
	}
	return entries, skipped, nil
}

// readNames lists dir's names without looking at the entries.
func readNames(fsys fs.FS, dir string) ([]string, error) {
	d, err := fsys.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	nf, ok := d.(namesFile)
	if !ok {
		return nil, errors.New("cannot list names")
	}
	names, err := nf.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	return names, nil
}

// unwrapPath drops the operation and path of a *fs.PathError, which a log
// line names itself.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// maxSkipLines bounds the skip lines one operation logs: the host keeps a
// few dozen log lines per call, and a tree full of sockets must not crowd
// out every other line, nor cost a warning about dropped lines per call.
const maxSkipLines = 16

// skipLog counts the skip lines of one operation.
type skipLog struct{ n int }

type skipLogKey struct{}

// withSkipLog starts counting skip lines, unless ctx already does; done
// logs how many were left out.
func withSkipLog(ctx context.Context) (context.Context, func()) {
	if _, ok := ctx.Value(skipLogKey{}).(*skipLog); ok {
		return ctx, func() {}
	}
	s := &skipLog{}
	return context.WithValue(ctx, skipLogKey{}, s), func() {
		if s.n > maxSkipLines {
			mcpw.Logf(ctx, mcpw.LevelInfo, "skipped %d more entries that are not regular files or could not be read", s.n-maxSkipLines)
		}
	}
}

// logSkip logs a skipped entry, the first maxSkipLines of an operation.
func logSkip(ctx context.Context, level mcpw.Level, format string, args ...any) {
	if s, ok := ctx.Value(skipLogKey{}).(*skipLog); ok {
		s.n++
		if s.n > maxSkipLines {
			return
		}
	}
	mcpw.Logf(ctx, level, format, args...)
}
