package sqliteprov

import (
	"bytes"
	"cmp"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
	"github.com/mcp-wasm/mcp-wasm/guests/sqlite/sqlitefmt"
)

// kinds are the object types, in the order resources are listed.
var kinds = []string{"table", "view", "index", "trigger"}

// dbState is one consistent read of a database's schema.
type dbState struct {
	stamp     []byte
	header    sqlitefmt.Header
	walFrames int
	objs      []sqlitefmt.Object
	byKey     map[objKey]int // index in objs
	unique    []int          // objs without repeated (kind, name), in rowid order

	sortOnce sync.Once
	sorted   []int // unique by kind, then name: made on first use (listing)
}

// objKey names an object: SQLite's names are unique per kind (and, for
// tables, views and indexes, across them).
type objKey struct{ kind, name string }

// state returns the schema of db, reading it again only when the file's
// stamp (header, WAL header, sizes) moved since the last read.
func (p *provider) state(db database) (*dbState, error) {
	open := opener(db.path)
	if cur, err := p.cached(db.path, open); err != nil || cur != nil {
		return cur, err
	}
	var st *dbState
	err := sqlitefmt.Snapshot(open, limits, func(d *sqlitefmt.DB) error {
		objs, err := d.Schema()
		if err != nil {
			return err
		}
		st = newState(d, objs)
		return nil
	})
	if err != nil {
		return nil, readError(db, err)
	}
	p.mu.Lock()
	p.cache[db.path] = st
	p.mu.Unlock()
	return st, nil
}

// cached returns the cached state if its stamp is still the file's.
func (p *provider) cached(path string, open sqlitefmt.Opener) (*dbState, error) {
	p.mu.Lock()
	cur := p.cache[path]
	p.mu.Unlock()
	if cur == nil {
		return nil, nil
	}
	f, err := open()
	if err != nil {
		return nil, nil // state reports it
	}
	defer f.Close()
	stamp, err := sqlitefmt.Stamp(f)
	if err != nil || !bytes.Equal(stamp, cur.stamp) {
		return nil, nil
	}
	return cur, nil
}

func newState(d *sqlitefmt.DB, objs []sqlitefmt.Object) *dbState {
	st := &dbState{stamp: d.Stamp, header: d.Header, walFrames: d.WALFrames, objs: objs,
		byKey: make(map[objKey]int, len(objs)), unique: make([]int, 0, len(objs))}
	for i, o := range objs {
		k := objKey{o.Type, o.Name}
		if _, dup := st.byKey[k]; !dup {
			st.byKey[k] = i
			st.unique = append(st.unique, i)
		}
	}
	return st
}

// ordered returns the objects by kind, then name, as they are listed.
// Sorting is left until a listing needs it: reading one object or the
// summary does not.
func (st *dbState) ordered() []int {
	st.sortOnce.Do(func() {
		st.sorted = slices.Clone(st.unique)
		slices.SortStableFunc(st.sorted, func(a, b int) int {
			x, y := &st.objs[a], &st.objs[b]
			if c := cmp.Compare(kindRank(x.Type), kindRank(y.Type)); c != 0 {
				return c
			}
			return strings.Compare(x.Name, y.Name)
		})
	})
	return st.sorted
}

// kindRank orders kinds as resources are listed.
func kindRank(kind string) int {
	switch kind {
	case "table":
		return 0
	case "view":
		return 1
	case "index":
		return 2
	}
	return 3
}

// object returns the object of kind named name.
func (st *dbState) object(kind, name string) (sqlitefmt.Object, bool) {
	i, ok := st.byKey[objKey{kind, name}]
	if !ok {
		return sqlitefmt.Object{}, false
	}
	return st.objs[i], true
}

// readError turns a reader error into a provider error that names the
// database (never its host path) and what to do.
func readError(db database, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return mcpw.NotFound("database %s: its file is gone", db.name)
	case errors.Is(err, sqlitefmt.ErrBusy):
		return mcpw.Internal("database %s: %v", db.name, err)
	case errors.Is(err, sqlitefmt.ErrNotSQLite):
		return mcpw.Internal("database %s: %v: grant a SQLite database file", db.name, err)
	case errors.Is(err, sqlitefmt.ErrCorrupt):
		return mcpw.Internal("database %s: %v: check it with sqlite3 (PRAGMA integrity_check)", db.name, err)
	case errors.Is(err, sqlitefmt.ErrTooLarge):
		return mcpw.Internal("database %s: %v", db.name, err)
	}
	return mcpw.Internal("database %s: %v", db.name, err)
}
