package sqliteprov

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw/mcpwtest"
	"github.com/mcp-wasm/mcp-wasm/guests/sqlite/internal/sqlitetest"
)

const richSchema = `
CREATE TABLE users(id INTEGER PRIMARY KEY AUTOINCREMENT, email TEXT NOT NULL UNIQUE, name TEXT DEFAULT 'anon', born REAL DEFAULT (julianday('now')));
CREATE TABLE "order items"("order" INTEGER REFERENCES users(id) ON DELETE CASCADE, [sku] TEXT, ` + "`qty`" + ` INT CHECK (qty > 0), total INT AS (qty * 2) STORED, PRIMARY KEY("order", sku)) WITHOUT ROWID;
CREATE TABLE "we/ird %name"(a, b DEFAULT -1, FOREIGN KEY (a, b) REFERENCES "order items"("order", sku) ON UPDATE SET NULL);
CREATE VIEW adults AS SELECT * FROM users WHERE id > 1;
CREATE INDEX users_name ON users(name COLLATE NOCASE DESC) WHERE name IS NOT NULL;
CREATE TRIGGER users_ins AFTER INSERT ON users BEGIN UPDATE users SET name = 'x;y' WHERE id = new.id; END;
INSERT INTO users(email) VALUES ('a@example.com'), ('b@example.com'), ('c@example.com');
`

// TestCheck runs the battery of mcp-wasm check natively, row samples on.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	makeDB(t, dir, "app.db", richSchema)
	mcpwtest.Check(t, func() mcpw.Provider { return New(dir) }, mcpwtest.Options{Host: &mcpw.MapHost{Values: map[string]string{keyRows: "2"}}})
}

// TestDifferentialThousandTables: through the provider, every table the
// shell's .tables names is listed, and the DDL of every listed object is
// what .schema prints, object by object, no more, no less.
func TestDifferentialThousandTables(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("BEGIN;\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "CREATE TABLE t%04d(id INTEGER PRIMARY KEY, name TEXT NOT NULL, parent INT REFERENCES t%04d(id));\n", i, max(i-1, 0))
		fmt.Fprintf(&b, "CREATE INDEX t%04d_name ON t%04d(name);\n", i, i)
	}
	b.WriteString("COMMIT;\n")
	db := makeDB(t, dir, "big.db", b.String()+richSchema)
	requireSameAsShell(t, db, New(dir), "big.db")
}

func requireSameAsShell(t *testing.T, db string, p mcpw.Provider, name string) {
	ctx := host(nil)
	listed := map[string]bool{}
	rest := sqlitetest.Run(t, db, ".schema\n")
	for _, r := range listAll(t, ctx, p) {
		listed[r.Title] = true
		if r.MIMEType != mimeSQL {
			continue
		}
		ddl := read(t, ctx, p, r.URI)
		if strings.HasPrefix(ddl, "-- ") {
			continue // an automatic index: the shell prints nothing for it
		}
		var ok bool
		rest, ok = sqlitetest.CutStatement(rest, sqlitetest.ShellForm(ddl))
		require.True(t, ok, ".schema does not print the DDL of %s", r.URI)
	}
	require.Empty(t, strings.TrimSpace(rest), ".schema prints statements the provider does not serve")
	tables := sqlitetest.Run(t, db, ".tables\n")
	for title := range listed {
		for _, kind := range []string{"table ", "view "} {
			if name, ok := strings.CutPrefix(title, kind); ok && !strings.HasPrefix(name, "sqlite_") && !strings.HasSuffix(name, "(description)") {
				require.Contains(t, tables, name)
				tables = strings.Replace(tables, name, "", 1)
			}
		}
	}
	require.Empty(t, strings.TrimSpace(tables), ".tables names tables the provider does not list")
}

// TestDescriptionMatchesPragmas: the parser's columns and foreign keys are
// what SQLite itself reports (PRAGMA table_xinfo, foreign_key_list).
func TestDescriptionMatchesPragmas(t *testing.T) {
	dir := t.TempDir()
	db := makeDB(t, dir, "app.db", richSchema+`
CREATE TABLE quoting('single' TEXT, "dou""ble" VARCHAR(20) NOT NULL, [brack ets] NUMERIC(10, 2) DEFAULT 0.5, `+"`back``tick`"+` BLOB DEFAULT x'00', PRIMARY KEY ("dou""ble", 'single')) WITHOUT ROWID;`)
	p, ctx := New(dir), host(nil)
	for _, table := range []string{"users", "order items", "we/ird %name", "quoting"} {
		var desc struct {
			Columns     []Column     `json:"columns"`
			ForeignKeys []ForeignKey `json:"foreignKeys"`
			ParseError  string       `json:"parseError"`
		}
		readJSON(t, ctx, p, objectURI("app.db", "table", table, viewDescription), &desc)
		require.Empty(t, desc.ParseError)
		var info []struct {
			Name    string  `json:"name"`
			Type    string  `json:"type"`
			NotNull int     `json:"notnull"`
			Dflt    *string `json:"dflt_value"`
			PK      int     `json:"pk"`
		}
		out := sqlitetest.Run(t, db, fmt.Sprintf("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_xinfo(%s);", quoteLit(table)), "-json")
		require.NoError(t, json.Unmarshal([]byte(out), &info), out)
		require.Len(t, desc.Columns, len(info), table)
		for i, c := range desc.Columns {
			require.Equal(t, info[i].Name, c.Name, table)
			require.Equal(t, info[i].Type, c.Type, "%s.%s", table, c.Name)
			require.Equal(t, info[i].NotNull == 1, c.NotNull, "%s.%s", table, c.Name)
			require.Equal(t, info[i].Dflt, c.Default, "%s.%s", table, c.Name)
			require.Equal(t, info[i].PK, c.PK, "%s.%s", table, c.Name)
		}
		var fks []struct {
			ID       int     `json:"id"`
			Table    string  `json:"table"`
			From     string  `json:"from"`
			To       *string `json:"to"`
			OnUpdate string  `json:"on_update"`
			OnDelete string  `json:"on_delete"`
		}
		out = sqlitetest.Run(t, db, fmt.Sprintf("SELECT * FROM pragma_foreign_key_list(%s) ORDER BY id DESC, seq;", quoteLit(table)), "-json")
		if strings.TrimSpace(out) != "" {
			require.NoError(t, json.Unmarshal([]byte(out), &fks), out)
		}
		var flat []string
		for _, fk := range desc.ForeignKeys {
			for i, col := range fk.Columns {
				to := ""
				if i < len(fk.References) {
					to = fk.References[i]
				}
				flat = append(flat, fmt.Sprintf("%s %s->%s %s %s", fk.Table, col, to, orNoAction(fk.OnUpdate), orNoAction(fk.OnDelete)))
			}
		}
		var want []string
		for _, fk := range fks {
			to := ""
			if fk.To != nil {
				to = *fk.To
			}
			want = append(want, fmt.Sprintf("%s %s->%s %s %s", fk.Table, fk.From, to, fk.OnUpdate, fk.OnDelete))
		}
		require.Equal(t, want, flat, table)
	}
}

func orNoAction(s string) string {
	if s == "" {
		return "NO ACTION"
	}
	return s
}

func quoteLit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// TestRows: off by default (no template, not found), capped by config.
func TestRows(t *testing.T) {
	dir := t.TempDir()
	makeDB(t, dir, "app.db", richSchema)
	p := New(dir)
	uri := objectURI("app.db", "table", "users", viewRows)

	_, err := p.(mcpw.Reader).Read(host(nil), uri)
	require.ErrorContains(t, err, "row samples are off")
	tpl, err := p.(mcpw.Templater).Templates(host(nil), "")
	require.NoError(t, err)
	for _, tp := range tpl.ResourceTemplates {
		require.NotContains(t, tp.URITemplate, "/rows")
	}

	ctx := host(map[string]string{keyRows: "2"})
	var sample rowsSample
	readJSON(t, ctx, p, uri, &sample)
	require.Equal(t, []string{"id", "email", "name", "born"}, sample.Columns)
	require.Len(t, sample.Rows, 2)
	require.Equal(t, []any{float64(1), "a@example.com", "x;y"}, sample.Rows[0][:3], "the rowid alias column carries the rowid")
	require.True(t, sample.Truncated)

	_, err = p.(mcpw.Reader).Read(ctx, objectURI("app.db", "table", "order items", viewRows))
	require.Equal(t, abi.CodeNotFound, errCode(err), "WITHOUT ROWID tables are not sampled")
	_, err = p.(mcpw.Reader).Read(host(map[string]string{keyRows: "100000"}), uri)
	require.ErrorContains(t, err, "from 0 (off) to 1000")
}

// TestChanges: a schema change updates the object's DDL and description
// and the summary; an added table changes the list; a data change changes
// nothing.
func TestChanges(t *testing.T) {
	dir := t.TempDir()
	db := makeDB(t, dir, "app.db", richSchema)
	p, ctx := New(dir), host(nil)
	ch := p.(mcpw.Changer)
	base, err := ch.Changes(ctx, abi.ChangesRequest{})
	require.NoError(t, err)
	require.Empty(t, base.Updated)

	sqlitetest.Run(t, db, "INSERT INTO users(email) VALUES ('d@example.com');")
	res, err := ch.Changes(ctx, abi.ChangesRequest{Cursor: base.Cursor})
	require.NoError(t, err)
	require.Empty(t, res.Updated, "rows are not the schema")
	require.False(t, res.ListChanged)
	require.Equal(t, base.Cursor, res.Cursor)

	sqlitetest.Run(t, db, "ALTER TABLE users ADD COLUMN nick TEXT;")
	res, err = ch.Changes(ctx, abi.ChangesRequest{Cursor: base.Cursor})
	require.NoError(t, err)
	require.Equal(t, []string{"sqlite://app.db/", "sqlite://app.db/table/users", "sqlite://app.db/table/users/description"}, res.Updated)
	require.False(t, res.ListChanged)

	sqlitetest.Run(t, db, "CREATE INDEX users_nick ON users(nick);")
	res2, err := ch.Changes(ctx, abi.ChangesRequest{Cursor: res.Cursor})
	require.NoError(t, err)
	require.True(t, res2.ListChanged)
	require.Equal(t, []string{"sqlite://app.db/", "sqlite://app.db/index/users_nick", "sqlite://app.db/index/users_nick/description",
		"sqlite://app.db/table/users/description"}, res2.Updated, "an index changes its table's description")

	// A cursor another instance made: this one cannot tell what, only that.
	fresh, err := New(dir).(mcpw.Changer).Changes(ctx, abi.ChangesRequest{Cursor: base.Cursor})
	require.NoError(t, err)
	require.True(t, fresh.ListChanged)
	require.Contains(t, fresh.Updated, "sqlite://app.db/table/users/description")
}

// TestHostileDatabase: a corrupt database costs a clear error naming it,
// and does not hide the others from the listing.
func TestHostileDatabase(t *testing.T) {
	dir := t.TempDir()
	good := makeDB(t, dir, "good.db", "CREATE TABLE a(x);")
	b, err := os.ReadFile(good)
	require.NoError(t, err)
	b[16], b[17] = 0x03, 0xe8 // page size 1000
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.db"), b, 0o644))
	p, logs := New(dir), &mcpw.MapHost{}
	ctx := mcpw.WithHost(host(nil), logs)
	var uris []string
	for _, r := range listAll(t, ctx, p) {
		uris = append(uris, r.URI)
	}
	require.Equal(t, []string{"sqlite://good.db/", "sqlite://good.db/table/a", "sqlite://good.db/table/a/description"}, uris)
	_, err = p.(mcpw.Reader).Read(ctx, "sqlite://bad.db/")
	require.ErrorContains(t, err, "database bad.db: read header: database file is malformed: page size 1000")
	require.NotContains(t, err.Error(), dir, "no host path")
	base, err := p.(mcpw.Changer).Changes(ctx, abi.ChangesRequest{})
	require.NoError(t, err, "the good database is still watched")
	sqlitetest.Run(t, good, "CREATE TABLE b(y);")
	res, err := p.(mcpw.Changer).Changes(ctx, abi.ChangesRequest{Cursor: base.Cursor})
	require.NoError(t, err)
	require.True(t, res.ListChanged)
}

// TestNames: config databases names the databases; a bad entry is an
// error naming the fix; the default name is the base name, lower-cased.
func TestNames(t *testing.T) {
	dir := t.TempDir()
	db := makeDB(t, dir, "My App.SQLite", "CREATE TABLE a(x);")
	ctx := host(nil)
	require.Equal(t, "sqlite://my-app.sqlite/", listAll(t, ctx, New(dir))[0].URI)
	ctx = host(map[string]string{keyDatabases: "crm=" + db})
	require.Equal(t, "sqlite://crm/", listAll(t, ctx, New(dir))[0].URI)
	for _, bad := range []string{"crm", "c m=/x", "=" + db, "a=relative.db", "a=/x,a=/y", "-a=/x"} {
		_, err := New(dir).(mcpw.Lister).List(host(map[string]string{keyDatabases: bad}), "")
		require.ErrorContains(t, err, "write NAME=PATH pairs", bad)
	}
}

// errCode is the ABI code of a provider error.
func errCode(err error) string {
	var e *mcpw.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
