package sqliteprov

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func str(s string) *string { return &s }

func TestParseCreateTable(t *testing.T) {
	cases := []struct {
		sql  string
		want TableDef
	}{
		{`CREATE TABLE t(a INTEGER PRIMARY KEY AUTOINCREMENT, "b c" VARCHAR(10, 2) NOT NULL DEFAULT 'x''y', [d] DEFAULT -1.5e3, ` + "`e`" + ` COLLATE NOCASE UNIQUE)`,
			TableDef{Columns: []Column{
				{Name: "a", Type: "INTEGER", PK: 1},
				{Name: "b c", Type: "VARCHAR(10, 2)", NotNull: true, Default: str("'x''y'")},
				{Name: "d", Default: str("-1.5e3")},
				{Name: "e", Collate: "NOCASE", Unique: true},
			}, PrimaryKey: []string{"a"}}},
		{`create temp table if not exists main."x"('a' int, b, c, CONSTRAINT pk PRIMARY KEY (b DESC, "a") ON CONFLICT REPLACE, UNIQUE(c), CHECK (a > 0),
		  FOREIGN KEY (c, b) REFERENCES p(x, y) ON DELETE SET NULL ON UPDATE CASCADE DEFERRABLE INITIALLY DEFERRED) WITHOUT ROWID, STRICT`,
			TableDef{Columns: []Column{{Name: "a", Type: "int", PK: 2, NotNull: true}, {Name: "b", PK: 1, NotNull: true}, {Name: "c"}},
				PrimaryKey:   []string{"b", "a"},
				ForeignKeys:  []ForeignKey{{Columns: []string{"c", "b"}, Table: "p", References: []string{"x", "y"}, OnDelete: "SET NULL", OnUpdate: "CASCADE"}},
				WithoutRowid: true, Strict: true}},
		{"CREATE TABLE g(a INT, b INT GENERATED ALWAYS AS (a*2) STORED, c AS (a || ')') VIRTUAL, d REFERENCES other -- trailing\n)",
			TableDef{Columns: []Column{{Name: "a", Type: "INT"}, {Name: "b", Type: "INT", Generated: "stored"}, {Name: "c", Generated: "virtual"}, {Name: "d"}},
				ForeignKeys: []ForeignKey{{Columns: []string{"d"}, Table: "other", References: []string{}}}}},
		{"CREATE TABLE d(a DEFAULT (strftime('%s','now')) /* c, o, m */ NOT NULL, b DEFAULT CURRENT_TIMESTAMP, c DEFAULT NULL)",
			TableDef{Columns: []Column{{Name: "a", NotNull: true, Default: str("strftime('%s','now')")}, {Name: "b", Default: str("CURRENT_TIMESTAMP")}, {Name: "c", Default: str("NULL")}}}},
		{"CREATE VIRTUAL TABLE f USING fts5(x, y)", TableDef{Virtual: "fts5"}},
		{"CREATE TABLE s AS SELECT 1 AS a", TableDef{AsSelect: true}},
	}
	for _, tc := range cases {
		got, err := ParseCreateTable(tc.sql)
		require.NoError(t, err, tc.sql)
		want := tc.want
		if want.Columns == nil {
			want.Columns = []Column{}
		}
		if want.PrimaryKey == nil {
			want.PrimaryKey = []string{}
		}
		if want.ForeignKeys == nil {
			want.ForeignKeys = []ForeignKey{}
		}
		require.Equal(t, &want, got, tc.sql)
	}
}

func TestParseCreateTableRefuses(t *testing.T) {
	for _, sql := range []string{
		"", "CREATE", "CREATE INDEX i ON t(a)", "CREATE TABLE t", "CREATE TABLE t(a", `CREATE TABLE "t(a)`,
		"CREATE TABLE t(a) WITHOUT", "CREATE TABLE t(a) junk", "CREATE TABLE t(a PRIMARY)", "CREATE TABLE t(a CHECK)",
		"CREATE TABLE t(a, FOREIGN KEY (a))", "CREATE TABLE t(a, CONSTRAINT)", "CREATE TABLE t([a)", "CREATE TABLE t(a NOT NULL ON CONFLICT)",
		"CREATE TABLE t(a DEFAULT)", "CREATE TABLE t(,)",
	} {
		_, err := ParseCreateTable(sql)
		require.Error(t, err, sql)
	}
}

func TestParseCreateIndex(t *testing.T) {
	def, err := ParseCreateIndex(`CREATE UNIQUE INDEX IF NOT EXISTS "i" ON [t] (a COLLATE NOCASE, lower(b) DESC) WHERE a > 0;`)
	require.NoError(t, err)
	require.Equal(t, &IndexDef{Unique: true, Columns: []string{"a COLLATE NOCASE", "lower(b) DESC"}, Where: "a > 0"}, def)
	_, err = ParseCreateIndex("CREATE INDEX i ON t")
	require.Error(t, err)
}

// FuzzParseCreateTable: the stored SQL is the file's, so untrusted: any
// bytes parse or fail, never panic.
func FuzzParseCreateTable(f *testing.F) {
	for _, s := range []string{
		`CREATE TABLE t(a INTEGER PRIMARY KEY, "b" TEXT DEFAULT 'x', [c] REFERENCES p(x) ON DELETE CASCADE, CHECK(a>0)) WITHOUT ROWID, STRICT`,
		"CREATE TABLE g(a INT, b AS (a*2) STORED, FOREIGN KEY(a) REFERENCES q)",
		"CREATE UNIQUE INDEX i ON t(a, lower(b)) WHERE a > 0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		_, _ = ParseCreateTable(sql)
		_, _ = ParseCreateIndex(sql)
	})
}
