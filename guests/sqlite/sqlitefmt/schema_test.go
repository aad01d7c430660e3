package sqlitefmt

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/guests/sqlite/internal/sqlitetest"
)

// richSchema has every kind of object, quoting of each style, a statement
// long enough to overflow a page, and automatic indexes.
var richSchema = `
CREATE TABLE users(id INTEGER PRIMARY KEY AUTOINCREMENT, email TEXT NOT NULL UNIQUE, name TEXT DEFAULT 'anon');
CREATE TABLE "order items"("order" INTEGER REFERENCES users(id), [sku] TEXT, ` + "`qty`" + ` INT, PRIMARY KEY("order", sku)) WITHOUT ROWID;
CREATE TABLE long_one(a, b /* ` + strings.Repeat("a long comment ", 1500) + ` */);
CREATE TABLE gen(a INT, b INT GENERATED ALWAYS AS (a * 2) STORED, c INT AS (a + 1)) STRICT;
CREATE VIEW adults AS SELECT * FROM users WHERE id > 1;
CREATE INDEX users_name ON users(name COLLATE NOCASE DESC) WHERE name IS NOT NULL;
CREATE TRIGGER users_ins AFTER INSERT ON users BEGIN UPDATE users SET name = 'x;y' WHERE id = new.id; END;
INSERT INTO users(email) VALUES ('a@example.com'), ('b@example.com');
`

// TestSchemaMatchesShell: every object the sqlite3 shell prints, exactly as
// it prints it, in a rollback-journal database.
func TestSchemaMatchesShell(t *testing.T) {
	p := makeDB(t, richSchema)
	objs := schemaOf(t, p)
	requireSameSchema(t, p, objs)
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.Type]++
	}
	// sqlite_sequence, users, order items, long_one, gen; two automatic indexes (users.email, and none for the WITHOUT ROWID pk) plus users_name.
	require.Equal(t, map[string]int{"table": 5, "view": 1, "index": 2, "trigger": 1}, kinds)
}

// TestThousandTables: a schema whose sqlite_schema b-tree has interior
// pages.
func TestThousandTables(t *testing.T) {
	p := makeDB(t, thousandTables(1000))
	d, err := openPath(t, p, Limits{})
	require.NoError(t, err)
	objs, err := d.Schema()
	require.NoError(t, err)
	require.Len(t, objs, 2000)
	requireSameSchema(t, p, objs)
}

func thousandTables(n int) string {
	var b strings.Builder
	b.WriteString("BEGIN;\n")
	for i := range n {
		fmt.Fprintf(&b, "CREATE TABLE t%04d(id INTEGER PRIMARY KEY, name TEXT NOT NULL, parent INT REFERENCES t%04d(id), note TEXT DEFAULT 'n');\n", i, max(i-1, 0))
		fmt.Fprintf(&b, "CREATE INDEX t%04d_name ON t%04d(name);\n", i, i)
	}
	b.WriteString("COMMIT;\n")
	return b.String()
}

// TestWALUncheckpointed: a WAL-mode database whose schema changes are still
// only in the -wal file shows them; the database file alone does not.
func TestWALUncheckpointed(t *testing.T) {
	p := makeDB(t, "PRAGMA journal_mode=WAL; CREATE TABLE first(a);")
	sh := sqlitetest.Start(t, p)
	sh.Exec(t, "PRAGMA wal_autocheckpoint=0; CREATE TABLE second(b); CREATE INDEX second_b ON second(b); DROP TABLE first; CREATE TABLE third(c);")
	objs := schemaOf(t, p)
	var names []string
	for _, o := range objs {
		names = append(names, o.Name)
	}
	require.ElementsMatch(t, []string{"second", "second_b", "third"}, names)
	requireSameSchema(t, p, objs)

	b, err := os.ReadFile(p)
	require.NoError(t, err)
	d, err := openFile(b, nil)
	require.NoError(t, err)
	old, err := d.Schema()
	require.NoError(t, err)
	require.Len(t, old, 1, "the database file alone still has the checkpointed schema")
	require.Equal(t, "first", old[0].Name)

	// A frame that fails its checksum ends the log: the commit it belonged
	// to is not seen, the earlier ones are.
	w, err := os.ReadFile(p + "-wal")
	require.NoError(t, err)
	last := len(w) - 1
	w[last] ^= 0xff
	d, err = openFile(b, w)
	require.NoError(t, err)
	cut, err := d.Schema()
	require.NoError(t, err)
	names = nil
	for _, o := range cut {
		names = append(names, o.Name)
	}
	require.ElementsMatch(t, []string{"second", "second_b"}, names, "the last commit (CREATE TABLE third) is dropped, the earlier ones stand")
}

func openFile(db, wal []byte) (*DB, error) {
	if wal == nil {
		return Open(bytesReader(db), int64(len(db)), nil, 0, Limits{})
	}
	return Open(bytesReader(db), int64(len(db)), bytesReader(wal), int64(len(wal)), Limits{})
}

// TestRows reads a table's rows, overflowing ones included.
func TestRows(t *testing.T) {
	big := strings.Repeat("x", 10000)
	p := makeDB(t, "CREATE TABLE r(a INTEGER PRIMARY KEY, b TEXT, c REAL, d BLOB, e);"+
		"INSERT INTO r VALUES (1, 'one', 1.5, x'00ff', NULL), (2, '"+big+"', -2.0, NULL, -123456789012), (3, 'three', 0, x'', 7);")
	d, err := openPath(t, p, Limits{})
	require.NoError(t, err)
	objs, err := d.Schema()
	require.NoError(t, err)
	var got [][]Value
	var rowids []int64
	require.NoError(t, d.Rows(objs[0].RootPage, func(rowid int64, vals []Value) bool {
		rowids = append(rowids, rowid)
		got = append(got, vals)
		return true
	}))
	require.Equal(t, []int64{1, 2, 3}, rowids)
	require.Equal(t, "one", got[0][1].Text)
	require.Equal(t, 1.5, got[0][2].Float)
	require.Equal(t, []byte{0, 0xff}, got[0][3].Blob)
	require.Equal(t, Null, got[0][4].Kind)
	require.Equal(t, big, got[1][1].Text)
	require.Equal(t, int64(-123456789012), got[1][4].Int)
	require.Equal(t, int64(7), got[2][4].Int)
}

// TestUTF16: text of a UTF-16 database comes out as UTF-8.
func TestUTF16(t *testing.T) {
	for _, enc := range []string{"UTF-16le", "UTF-16be"} {
		p := makeDB(t, "PRAGMA encoding='"+enc+"'; CREATE TABLE \"héllo\"(\"wörld\" TEXT);")
		objs := schemaOf(t, p)
		require.Equal(t, "héllo", objs[0].Name, enc)
		requireSameSchema(t, p, objs)
	}
}
