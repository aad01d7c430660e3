package sqlitefmt

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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

// makeDB runs script with the sqlite3 shell on a new database file and
// returns its path.
func makeDB(t testing.TB, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "test.db")
	runSQL(t, p, script)
	return p
}

// runSQL runs script on the database at p and returns the shell's output.
func runSQL(t testing.TB, p, script string) string {
	t.Helper()
	cmd := exec.Command(sqlite3(t), "-batch", "-bail", p)
	cmd.Stdin = strings.NewReader(script)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "sqlite3: %s", out)
	return string(out)
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
	tables := runSQL(t, p, ".tables\n")
	for _, name := range names {
		require.Contains(t, tables, name)
		tables = strings.Replace(tables, name, "", 1)
	}
	require.Empty(t, strings.TrimSpace(tables), ".tables names tables the reader did not find")
	rest := runSQL(t, p, ".schema\n")
	n := 0
	for _, o := range objs {
		if !o.HasSQL {
			continue
		}
		var ok bool
		rest, ok = cutStatement(rest, shellForm(o.SQL))
		require.True(t, ok, ".schema does not print the reader's statement of %s %s", o.Type, o.Name)
		n++
	}
	require.Empty(t, strings.TrimSpace(rest), ".schema prints statements the reader did not find")
	require.Positive(t, n)
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

// shellForm is a statement as the shell's .schema prints it: its
// printSchemaLine (shell.c) writes a CREATE TABLE whose name starts with a
// quote as CREATE TABLE IF NOT EXISTS, and prints everything else as stored.
func shellForm(sql string) string {
	if strings.HasPrefix(sql, `CREATE TABLE "`) || strings.HasPrefix(sql, "CREATE TABLE '") {
		return "CREATE TABLE IF NOT EXISTS " + sql[len("CREATE TABLE "):]
	}
	return sql
}

// liveShell is a sqlite3 shell kept open on a database, so that a WAL is
// not checkpointed and removed by the last connection's close.
type liveShell struct {
	in  io.WriteCloser
	out *bufio.Reader
	cmd *exec.Cmd
	n   int
}

func startShell(t testing.TB, p string) *liveShell {
	t.Helper()
	cmd := exec.Command(sqlite3(t), "-batch", p)
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	s := &liveShell{in: in, out: bufio.NewReader(out), cmd: cmd}
	t.Cleanup(func() { _ = in.Close(); _ = cmd.Wait() })
	return s
}

// exec runs script and waits until the shell has finished it.
func (s *liveShell) exec(t testing.TB, script string) {
	t.Helper()
	s.n++
	marker := fmt.Sprintf("done-%d", s.n)
	_, err := io.WriteString(s.in, script+"\nSELECT '"+marker+"';\n")
	require.NoError(t, err)
	for {
		line, err := s.out.ReadString('\n')
		require.NoError(t, err)
		if strings.TrimSpace(line) == marker {
			return
		}
	}
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
