// Package sqlitefmt reads the SQLite database file format
// (https://www.sqlite.org/fileformat2.html) without SQLite: the 100-byte
// header, table b-trees (interior and leaf pages), overflow chains, the
// record format and its serial types, page 1's sqlite_schema table, and the
// committed frames of a write-ahead log (the -wal file). It is standard
// library only, so it builds for GOOS=wasip1 and natively.
//
// It is read-only and refuses to trust the file: every page number, cell
// offset, varint, payload size and chain is checked against the file and
// the Limits before it is used, a b-tree page seen twice in one walk or an
// overflow chain that comes back on itself is an ErrCorrupt error, and a
// schema bigger than the limits is refused. It never writes, never takes a
// lock and never rolls back a journal: a reader that wants a consistent view
// while another process writes uses Snapshot, which retries a scan whose
// file changed under it and then gives up with ErrBusy.
//
// It does not execute SQL, read index b-trees or decode UTF-16 databases'
// text other than by converting it to UTF-8.
package sqlitefmt

import "errors"

// Errors. Each is wrapped with what was being read.
var (
	// ErrNotSQLite: the file does not start with the SQLite header string.
	ErrNotSQLite = errors.New("not a SQLite 3 database")
	// ErrCorrupt: the file breaks the format (a bad page number, a loop, a
	// record that does not fit, a truncated file).
	ErrCorrupt = errors.New("database file is malformed")
	// ErrTooLarge: the file is valid so far but over one of the Limits.
	ErrTooLarge = errors.New("database is over a limit")
	// ErrBusy: the file kept changing while it was read.
	ErrBusy = errors.New("database busy")
)

// Limits bound what one read may cost. The zero value of a field means its
// default.
type Limits struct {
	// MaxObjects is the most rows sqlite_schema may hold (default 100,000).
	MaxObjects int
	// MaxSchemaBytes is the most bytes of schema records (default 32 MiB).
	MaxSchemaBytes int64
	// MaxPayload is the largest single record read (default 4 MiB).
	MaxPayload int64
	// MaxWALBytes is the largest -wal file read (default 256 MiB).
	MaxWALBytes int64
}

const (
	defaultMaxObjects     = 100_000
	defaultMaxSchemaBytes = 32 << 20
	defaultMaxPayload     = 4 << 20
	defaultMaxWALBytes    = 256 << 20
)

func (l Limits) withDefaults() Limits {
	if l.MaxObjects <= 0 {
		l.MaxObjects = defaultMaxObjects
	}
	if l.MaxSchemaBytes <= 0 {
		l.MaxSchemaBytes = defaultMaxSchemaBytes
	}
	if l.MaxPayload <= 0 {
		l.MaxPayload = defaultMaxPayload
	}
	if l.MaxWALBytes <= 0 {
		l.MaxWALBytes = defaultMaxWALBytes
	}
	return l
}
