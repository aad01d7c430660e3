// Package sqliteprov is the logic of the SQLite provider (guests/sqlite):
// the schema of the SQLite databases the operator grants, read-only, as
// resources under sqlite:// URIs. It reads the files with its own reader
// of the file format (package sqlitefmt), so no SQL runs, from clients or
// anyone else. It is plain Go, so it runs in the wasm guest and natively
// in tests.
//
// What it serves, for each database NAME (the authority; config
// "databases" names them, else each SQLite file at the top of a granted
// directory is named by its base name, lower-cased):
//
//   - sqlite://NAME/ : a JSON summary (page size, encoding, user_version,
//     journal mode, object counts);
//   - sqlite://NAME/KIND/OBJECT for each table, view, index and trigger:
//     its CREATE statement exactly as sqlite_schema stores it;
//   - sqlite://NAME/KIND/OBJECT/description: JSON of what a small parser
//     makes of it (columns, primary key, foreign keys, indexes);
//   - sqlite://NAME/table/OBJECT/rows: the first rows of a table, only
//     when the operator sets config "rows" (off by default).
//
// It refuses to follow anything out of the granted files, to serve a
// database it cannot read consistently (see sqlitefmt.Snapshot), and any
// file over its limits; each is an error naming the file's name and the fix.
package sqliteprov

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
	"github.com/mcp-wasm/mcp-wasm/guests/sqlite/sqlitefmt"
)

// Config keys the provider reads.
const (
	keyDatabases = "databases"
	keyRows      = "rows"
)

const (
	scheme    = "sqlite"
	uriPrefix = scheme + "://"
	// maxRows caps config rows: a sample, not an export.
	maxRows = 1000
	// cacheTTLMillis: about the time a change takes to be announced.
	cacheTTLMillis = 1000
)

// provider serves the databases found in its directories.
type provider struct {
	dirs []string

	mu    sync.Mutex
	cache map[string]*dbState // by database path
	snaps []*snapshot         // recent change snapshots, newest last
}

// New returns the SQLite provider over the granted directories dirs (guest
// paths).
func New(dirs ...string) mcpw.Provider {
	return &provider{dirs: dirs, cache: map[string]*dbState{}}
}

// Describe is the same whatever is granted.
func (p *provider) Describe() abi.Describe {
	return abi.Describe{
		Name:        "sqlite",
		Version:     "1.0.0",
		Title:       "SQLite schemas",
		Description: "Read-only schemas (tables, views, indexes, triggers) of the SQLite databases the operator grants, read from the file format itself: no SQL runs.",
		URISpace:    []abi.URIRoot{{Scheme: scheme, Authority: "*"}},
		Requests: &abi.Requests{
			Filesystem: []abi.FSRequest{{Path: "/", Reason: "the database files (grant the directory holding a WAL-mode database, so that its -wal file is seen too)"}},
			Config: []abi.ConfigRequest{
				{Key: keyDatabases, Reason: "NAME=PATH,... names each database (the URI authority) by its guest path; default: every SQLite file at the top of each granted directory, by its base name"},
				{Key: keyRows, Reason: "rows a table's rows sample holds (0 to 1000; default 0: no row samples)"},
			},
		},
		Cache: &abi.CacheHint{TTLMs: cacheTTLMillis, Scope: abi.ScopePublic},
	}
}

// rowsLimit returns config rows: 0 (off) when unset.
func rowsLimit(ctx context.Context) (int, error) {
	v, ok := mcpw.Config(ctx, keyRows)
	v = strings.TrimSpace(v)
	if !ok || v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > maxRows {
		return 0, mcpw.Internal("config %s is %q: set it to a number of rows from 0 (off) to %d", keyRows, clip(v), maxRows)
	}
	return n, nil
}

// clip shortens an operator's or a file's string for a message.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// limits are the reader's bounds, sized for the host's default 64 MiB
// memory cap: a schema of up to 8 MiB of records (about 30,000 tables of
// a few columns; the state built from it takes a few times that), no
// statement or sampled row over 1 MiB, at most 100,000 objects, a -wal file
// of at most 256 MiB (it is read a frame at a time, never held).
var limits = sqlitefmt.Limits{MaxSchemaBytes: 8 << 20, MaxPayload: 1 << 20, MaxObjects: 100_000, MaxWALBytes: 256 << 20}
