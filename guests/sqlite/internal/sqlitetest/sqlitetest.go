// Package sqlitetest is what the SQLite provider's tests share (the reader
// in sqlitefmt, the provider in sqliteprov, the built module's end-to-end
// tests): the real sqlite3 shell, run on a script or kept open on a
// database, and the form in which its .schema prints a statement. It is for
// tests only (imports_test.go keeps it out of the providers), and like the
// guests it imports only the standard library. It skips a test when the
// shell is missing, and fails it under CI, which installs it.
package sqlitetest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Shell returns the path of the sqlite3 shell, skipping the test without it
// (failing it under CI, which installs it).
func Shell(tb testing.TB) string {
	tb.Helper()
	p, err := exec.LookPath("sqlite3")
	if err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("sqlite3 not found: apt-get install sqlite3")
		}
		tb.Skip("sqlite3 not found: apt-get install sqlite3")
	}
	return p
}

// Run runs script with the sqlite3 shell (-batch -bail, then args) on the
// database at db, made if missing, and returns the shell's output.
func Run(tb testing.TB, db, script string, args ...string) string {
	tb.Helper()
	cmd := exec.Command(Shell(tb), append(append([]string{"-batch", "-bail"}, args...), db)...)
	cmd.Stdin = strings.NewReader(script)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("sqlite3 %s: %v: %s", db, err, out)
	}
	return string(out)
}

// Live is a sqlite3 shell kept open on a database, so that a WAL is not
// checkpointed and removed by the last connection's close.
type Live struct {
	in  io.WriteCloser
	out *bufio.Reader
	n   int
}

// Start opens a shell on db; the test's cleanup closes it and waits for it.
func Start(tb testing.TB, db string) *Live {
	tb.Helper()
	cmd := exec.Command(Shell(tb), "-batch", db)
	in, err := cmd.StdinPipe()
	check(tb, err)
	out, err := cmd.StdoutPipe()
	check(tb, err)
	cmd.Stderr = os.Stderr
	check(tb, cmd.Start())
	tb.Cleanup(func() { _ = in.Close(); _ = cmd.Wait() })
	return &Live{in: in, out: bufio.NewReader(out)}
}

// Exec runs script and waits until the shell has finished it: the shell
// prints a marker after it, and Exec reads up to the marker.
func (s *Live) Exec(tb testing.TB, script string) {
	tb.Helper()
	s.n++
	marker := fmt.Sprintf("done-%d", s.n)
	_, err := io.WriteString(s.in, script+"\nSELECT '"+marker+"';\n")
	check(tb, err)
	for {
		line, err := s.out.ReadString('\n')
		check(tb, err)
		if strings.TrimSpace(line) == marker {
			return
		}
	}
}

func check(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("sqlite3 shell: %v", err)
	}
}

// ShellForm is a statement as the shell's .schema prints it: its
// printSchemaLine (shell.c) writes a CREATE TABLE whose name starts with a
// quote as CREATE TABLE IF NOT EXISTS, and prints everything else as stored.
func ShellForm(sql string) string {
	if strings.HasPrefix(sql, `CREATE TABLE "`) || strings.HasPrefix(sql, "CREATE TABLE '") {
		return "CREATE TABLE IF NOT EXISTS " + sql[len("CREATE TABLE "):]
	}
	return sql
}

// CutStatement removes one printed statement from the shell's output: the
// statement, the comment the shell adds after a view (its columns), ";".
// It reports false when out does not hold stmt so printed.
func CutStatement(out, stmt string) (string, bool) {
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
