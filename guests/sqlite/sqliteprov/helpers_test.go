package sqliteprov

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// sqlite3 returns the sqlite3 shell, skipping the test without it (failing
// it under CI, which installs it).
func sqlite3(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("sqlite3")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("sqlite3 not found: apt-get install sqlite3")
		}
		t.Skip("sqlite3 not found: apt-get install sqlite3")
	}
	return p
}

// runSQL runs script with the sqlite3 shell on the database at p.
func runSQL(t testing.TB, p, script string, args ...string) string {
	t.Helper()
	cmd := exec.Command(sqlite3(t), append(append([]string{"-batch", "-bail"}, args...), p)...)
	cmd.Stdin = strings.NewReader(script)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "sqlite3: %s", out)
	return string(out)
}

// makeDB makes dir/name with script and returns its path.
func makeDB(t testing.TB, dir, name, script string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	runSQL(t, p, script)
	return p
}

// host grants config values to native calls.
func host(values map[string]string) context.Context {
	return mcpw.WithHost(context.Background(), &mcpw.MapHost{Values: values})
}

// read reads uri and returns its only content's text.
func read(t testing.TB, ctx context.Context, p mcpw.Provider, uri string) string {
	t.Helper()
	res, err := p.(mcpw.Reader).Read(ctx, uri)
	require.NoError(t, err, uri)
	require.Len(t, res.Contents, 1)
	return *res.Contents[0].Text
}

// readJSON reads uri and decodes its JSON into v.
func readJSON(t testing.TB, ctx context.Context, p mcpw.Provider, uri string, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal([]byte(read(t, ctx, p, uri)), v), uri)
}

// listAll pages through the whole listing.
func listAll(t testing.TB, ctx context.Context, p mcpw.Provider) []abi.Resource {
	t.Helper()
	var all []abi.Resource
	cursor := ""
	for {
		page, err := p.(mcpw.Lister).List(ctx, cursor)
		require.NoError(t, err)
		all = append(all, page.Resources...)
		if page.NextCursor == "" {
			return all
		}
		cursor = page.NextCursor
	}
}

// shellForm is a statement as the shell's .schema prints it: its
// printSchemaLine (shell.c) writes a CREATE TABLE whose name starts with a
// quote as CREATE TABLE IF NOT EXISTS, and prints everything else as stored.
func shellForm(sql string) string {
	if strings.HasPrefix(sql, `CREATE TABLE "`) || strings.HasPrefix(sql, "CREATE TABLE '") {
		return "CREATE TABLE IF NOT EXISTS " + sql[len("CREATE TABLE "):]
	}
	return sql
}

// cutStatement removes one printed statement from the shell's output: the
// statement, the comment the shell adds after a view (its columns), ";".
func cutStatement(out, stmt string) (string, bool) {
	for from := 0; ; {
		i := strings.Index(out[from:], stmt)
		if i < 0 {
			return out, false
		}
		i += from
		tail := out[i+len(stmt):]
		if strings.HasPrefix(tail, "\n/* ") {
			if j := strings.Index(tail, "*/"); j >= 0 {
				tail = tail[j+2:]
			}
		}
		if after, ok := strings.CutPrefix(tail, ";\n"); ok {
			return out[:i] + after, true
		}
		from = i + 1
	}
}
