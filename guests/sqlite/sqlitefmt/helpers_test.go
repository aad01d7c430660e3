package sqlitefmt

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/guests/sqlite/internal/sqlitetest"
)

// makeDB runs script with the sqlite3 shell on a new database file and
// returns its path.
func makeDB(t testing.TB, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "test.db")
	sqlitetest.Run(t, p, script)
	return p
}

// openPath opens the database at p (and its -wal file if there is one).
func openPath(t testing.TB, p string, lim Limits) (*DB, error) {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	w, err := os.ReadFile(p + "-wal")
	if err != nil {
		return Open(bytes.NewReader(b), int64(len(b)), nil, 0, lim)
	}
	return Open(bytes.NewReader(b), int64(len(b)), bytes.NewReader(w), int64(len(w)), lim)
}

// schemaOf reads the schema of the database at p.
func schemaOf(t testing.TB, p string) []Object {
	t.Helper()
	d, err := openPath(t, p, Limits{})
	require.NoError(t, err)
	objs, err := d.Schema()
	require.NoError(t, err)
	return objs
}

// requireSameSchema holds objs to what the sqlite3 shell prints for the
// database at p: .tables prints exactly the reader's tables and views
// (but sqlite_ ones, which it hides), and .schema prints exactly the stored
// statements of objs (each followed by ";"), no more, no less.
func requireSameSchema(t testing.TB, p string, objs []Object) {
	t.Helper()
	var names []string
	for _, o := range objs {
		if (o.Type == "table" || o.Type == "view") && !strings.HasPrefix(o.Name, "sqlite_") {
			names = append(names, o.Name)
		}
	}
	sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	tables := sqlitetest.Run(t, p, ".tables\n")
	for _, name := range names {
		require.Contains(t, tables, name)
		tables = strings.Replace(tables, name, "", 1)
	}
	require.Empty(t, strings.TrimSpace(tables), ".tables names tables the reader did not find")
	rest := sqlitetest.Run(t, p, ".schema\n")
	n := 0
	for _, o := range objs {
		if !o.HasSQL {
			continue
		}
		var ok bool
		rest, ok = sqlitetest.CutStatement(rest, sqlitetest.ShellForm(o.SQL))
		require.True(t, ok, ".schema does not print the reader's statement of %s %s", o.Type, o.Name)
		n++
	}
	require.Empty(t, strings.TrimSpace(rest), ".schema prints statements the reader did not find")
	require.Positive(t, n)
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
