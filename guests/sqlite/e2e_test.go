package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/sqlite/internal/sqlitetest"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

const schema = `
CREATE TABLE users(id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT DEFAULT 'anon');
CREATE TABLE "order items"("order" INTEGER REFERENCES users(id), sku TEXT, PRIMARY KEY("order", sku)) WITHOUT ROWID;
CREATE VIEW named AS SELECT * FROM users WHERE name IS NOT NULL;
CREATE INDEX users_name ON users(name);
CREATE TRIGGER users_ins AFTER INSERT ON users BEGIN SELECT 1; END;
INSERT INTO users(email) VALUES ('a@example.com'), ('b@example.com');
`

// TestCheck: `mcp-wasm check` passes on the built module granted a
// database, row samples on.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	sqlitetest.Run(t, filepath.Join(dir, "app.db"), schema)
	wasm := testguest.Go(t, "guests/sqlite")
	cmd := exec.Command(testguest.Binary(t), append(append([]string{"check"}, testkit.Flags()...), "--allow-dir", dir, "--config-value", "rows=2",
		"--cache-dir", filepath.Join(testguest.Root(), "build", "testguest", "serve-cache"), wasm)...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "PASS: 10 checks")
}

// TestServe: the real server with the sqlite.wasm guest granted a WAL-mode
// database that a sqlite3 shell keeps open, and the official go-sdk client:
// list, read the summary, a table's DDL and description, templates,
// completion, and a schema change still only in the -wal file arriving as
// notifications/resources/updated.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "app.db")
	sqlitetest.Run(t, db, "PRAGMA journal_mode=WAL;"+schema)
	shell := sqlitetest.Start(t, db)
	shell.Exec(t, "PRAGMA wal_autocheckpoint=0; CREATE TABLE in_wal(x);")

	updated := make(chan string, 16)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	argv := []string{"serve", "--module", testguest.Go(t, "guests/sqlite"), "--allow-dir", dir, "--config-value", "rows=5",
		"--cache-dir", filepath.Join(testguest.Root(), "build", "testguest", "serve-cache"), "--log-level", "error"}
	argv = append(argv, testkit.Flags()...)
	client := mcp.NewClient(&mcp.Implementation{Name: "sqlite-e2e", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
	})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.CommandContext(ctx, testguest.Binary(t), argv...)},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })

	var uris []string
	for r, err := range cs.Resources(ctx, nil) {
		require.NoError(t, err)
		uris = append(uris, r.URI)
	}
	require.Contains(t, uris, "sqlite://app.db/")
	require.Contains(t, uris, "sqlite://app.db/table/order%20items")
	require.Contains(t, uris, "sqlite://app.db/table/in_wal", "the table only the -wal file holds is listed")
	require.Contains(t, uris, "sqlite://app.db/trigger/users_ins/description")

	text := func(uri string) string {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		require.NoError(t, err, uri)
		return res.Contents[0].Text
	}
	var sum struct {
		JournalMode string         `json:"journalMode"`
		Objects     map[string]int `json:"objects"`
	}
	require.NoError(t, json.Unmarshal([]byte(text("sqlite://app.db/")), &sum))
	require.Equal(t, "wal", sum.JournalMode)
	require.Equal(t, map[string]int{"table": 3, "view": 1, "index": 2, "trigger": 1}, sum.Objects)
	require.Equal(t, `CREATE TABLE "order items"("order" INTEGER REFERENCES users(id), sku TEXT, PRIMARY KEY("order", sku)) WITHOUT ROWID`,
		text("sqlite://app.db/table/order%20items"))
	var desc struct {
		PrimaryKey  []string `json:"primaryKey"`
		ForeignKeys []struct {
			Table string `json:"table"`
		} `json:"foreignKeys"`
		WithoutRowid bool `json:"withoutRowid"`
	}
	require.NoError(t, json.Unmarshal([]byte(text("sqlite://app.db/table/order%20items/description")), &desc))
	require.Equal(t, []string{"order", "sku"}, desc.PrimaryKey)
	require.Equal(t, "users", desc.ForeignKeys[0].Table)
	require.True(t, desc.WithoutRowid)
	require.Contains(t, text("sqlite://app.db/table/users/rows"), `"b@example.com"`)

	var tpls []string
	for tp, err := range cs.ResourceTemplates(ctx, nil) {
		require.NoError(t, err)
		tpls = append(tpls, tp.URITemplate)
	}
	require.Contains(t, tpls, "sqlite://app.db/table/{name}")
	require.Contains(t, tpls, "sqlite://app.db/table/{name}/rows")
	comp, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "sqlite://app.db/table/{name}"},
		Argument: mcp.CompleteParamsArgument{Name: "name", Value: "o"},
	})
	require.NoError(t, err)
	require.Equal(t, []string{"order items"}, comp.Completion.Values)

	require.NoError(t, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "sqlite://app.db/table/users"}))
	shell.Exec(t, "ALTER TABLE users ADD COLUMN nick TEXT;")
	select {
	case uri := <-updated:
		require.Equal(t, "sqlite://app.db/table/users", uri)
	case <-ctx.Done():
		t.Fatal("no notifications/resources/updated for the altered table")
	}
	require.Contains(t, text("sqlite://app.db/table/users"), "nick TEXT")
}

// TestHostileWasm: in the sandbox, a database whose b-tree loops and one
// whose overflow chain loops each cost a clear error on the call, not a
// fault, a timeout or a trap; the good database beside them is served.
func TestHostileWasm(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	sqlitetest.Run(t, good, "CREATE TABLE a(x);")
	var many strings.Builder
	for i := range 300 {
		fmt.Fprintf(&many, "CREATE TABLE t%03d(id INTEGER PRIMARY KEY, name TEXT);\n", i)
	}
	loop := filepath.Join(t.TempDir(), "loop.db")
	sqlitetest.Run(t, loop, many.String())
	b, err := os.ReadFile(loop)
	require.NoError(t, err)
	require.Equal(t, byte(5), b[100], "sqlite_schema's root must be an interior page")
	copy(b[108:112], []byte{0, 0, 0, 1}) // its right-most child: itself
	require.NoError(t, os.WriteFile(filepath.Join(dir, "loop.db"), b, 0o644))

	ctx := t.Context()
	rt, err := runtime.New(ctx, runtime.NewConfig().WithCacheDir(filepath.Join(testguest.Root(), "build", "runtime-test-cache")))
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(ctx) })
	p, err := rt.LoadFile(ctx, testguest.Go(t, "guests/sqlite"), runtime.NewProviderConfig().WithCompileTimeout(10*time.Minute).
		WithGrants(runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: dir, GuestPath: "/data"}}}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close(ctx) })

	_, err = p.Read(ctx, "sqlite://loop.db/")
	require.ErrorIs(t, err, abi.ErrProviderInternal)
	require.Contains(t, err.Error(), "loop")
	page, err := p.List(ctx, "")
	require.NoError(t, err)
	require.Len(t, page.Resources, 3, "good.db is listed, loop.db is left out with a log line")
	require.Equal(t, "sqlite://good.db/", page.Resources[0].URI)
	require.Zero(t, p.Stats().Faults)
}
