package sqliteprov

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
	"github.com/mcp-wasm/mcp-wasm/guests/sqlite/sqlitefmt"
)

// database is a database file and the name its URIs carry.
type database struct {
	name string // the URI authority: [a-z0-9._-], starting with a letter or digit
	path string // its guest path
}

// maxScan bounds the directory entries looked at per granted directory.
const maxScan = 4096

// validName reports whether s can be a database's URI authority: 1 to 63
// of [a-z0-9._-], starting with a letter or digit (a DNS-like label,
// which every client parses the same way).
func validName(s string) bool {
	if len(s) == 0 || len(s) > 63 || s[0] == '.' || s[0] == '-' || s[0] == '_' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// nameOf makes a URI authority of a file's base name: lower-cased, every
// other character than [a-z0-9._-] as "-"; "" when nothing usable is left.
func nameOf(base string) string {
	b := []byte(strings.ToLower(base))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			b[i] = '-'
		}
	}
	s := strings.TrimLeft(string(b), ".-_")
	if len(s) > 63 {
		s = s[:63]
	}
	if !validName(s) {
		return ""
	}
	return s
}

// databases returns the databases served, sorted by name: config
// databases when set, else every SQLite file at the top of each directory.
func (p *provider) databases(ctx context.Context) ([]database, error) {
	if v, ok := mcpw.Config(ctx, keyDatabases); ok && strings.TrimSpace(v) != "" {
		return parseDatabases(v)
	}
	if len(p.dirs) == 0 {
		return nil, mcpw.Internal("no directory is granted to the sqlite provider: grant the directory holding the database (serve --allow-dir DIR)")
	}
	seen := map[string]string{}
	var out []database
	for _, dir := range p.dirs {
		for _, base := range scanDir(ctx, dir) {
			name := nameOf(base)
			full := path.Join(dir, base)
			if name == "" {
				mcpw.Logf(ctx, mcpw.LevelWarn, "skip %q: its name makes no URI authority; name it with config %s", clip(base), keyDatabases)
				continue
			}
			if other, dup := seen[name]; dup {
				mcpw.Logf(ctx, mcpw.LevelWarn, "skip %q: %q already has the name %s; name them with config %s", clip(full), clip(other), name, keyDatabases)
				continue
			}
			seen[name] = full
			out = append(out, database{name: name, path: full})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// parseDatabases parses config databases: NAME=PATH pairs, comma-separated.
func parseDatabases(v string) ([]database, error) {
	var out []database
	seen := map[string]bool{}
	for item := range strings.SplitSeq(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, p, ok := strings.Cut(item, "=")
		name, p = strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(p)
		if !ok || !validName(name) || !path.IsAbs(p) || seen[name] {
			return nil, mcpw.Internal("config %s has %q: write NAME=PATH pairs, comma-separated, each NAME unique and of 1-63 of [a-z0-9._-], each PATH the database's absolute path", keyDatabases, clip(item))
		}
		seen[name] = true
		out = append(out, database{name: name, path: path.Clean(p)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// scanDir returns the base names of the SQLite files at the top of dir:
// regular, not hidden, not a -wal, -shm or -journal file, starting with the
// SQLite header string. It looks at maxScan entries at most.
func scanDir(ctx context.Context, dir string) []string {
	f, err := os.Open(dir)
	if err != nil {
		mcpw.Logf(ctx, mcpw.LevelWarn, "open %s: %v", clip(dir), errors.Unwrap(err))
		return nil
	}
	defer f.Close()
	entries, err := f.ReadDir(maxScan)
	if err != nil && !errors.Is(err, io.EOF) {
		mcpw.Logf(ctx, mcpw.LevelWarn, "read %s: %v", clip(dir), errors.Unwrap(err))
	}
	if len(entries) == maxScan {
		mcpw.Logf(ctx, mcpw.LevelWarn, "%s has more than %d entries: only the first are looked at; name databases with config %s", clip(dir), maxScan, keyDatabases)
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if !e.Type().IsRegular() || strings.HasPrefix(n, ".") ||
			strings.HasSuffix(n, "-wal") || strings.HasSuffix(n, "-shm") || strings.HasSuffix(n, "-journal") {
			continue
		}
		if isSQLite(path.Join(dir, n)) {
			out = append(out, n)
		}
	}
	return out
}

func isSQLite(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [16]byte
	n, _ := io.ReadFull(f, b[:])
	return sqlitefmt.IsDatabase(b[:n])
}

// opener opens a database file and its -wal file, when there is one.
func opener(p string) sqlitefmt.Opener {
	return func() (sqlitefmt.Files, error) {
		db, size, err := openSized(p)
		if err != nil {
			return sqlitefmt.Files{}, err
		}
		files := sqlitefmt.Files{DB: db, DBSize: size, Close: func() { db.Close() }}
		if wal, wsize, err := openSized(p + "-wal"); err == nil {
			files.WAL, files.WALSize = wal, wsize
			files.Close = func() { db.Close(); wal.Close() }
		}
		return files, nil
	}
}

func openSized(p string) (*os.File, int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, 0, err
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = fs.ErrInvalid
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, info.Size(), nil
}
