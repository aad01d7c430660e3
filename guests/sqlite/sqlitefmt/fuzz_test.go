package sqlitefmt

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// FuzzRead: any database file and -wal file, read entirely under small
// limits, is an error or a result, never a panic or a hang. The seeds are
// real files made by the sqlite3 shell when it is installed, with 512-byte
// pages so that they are small (the fuzzer minimizes large inputs slowly).
func FuzzRead(f *testing.F) {
	if sh, err := exec.LookPath("sqlite3"); err == nil {
		dir := f.TempDir()
		for i, script := range []string{
			"PRAGMA page_size=512; CREATE TABLE a(x INTEGER PRIMARY KEY, y TEXT); INSERT INTO a VALUES (1, 'one');",
			"PRAGMA page_size=512; CREATE TABLE b(z /* " + string(bytes.Repeat([]byte("long "), 150)) + " */); INSERT INTO b VALUES (zeroblob(600));",
		} {
			p := filepath.Join(dir, "seed"+string(rune('0'+i))+".db")
			cmd := exec.Command(sh, p)
			cmd.Stdin = bytes.NewReader([]byte(script))
			if out, err := cmd.CombinedOutput(); err != nil {
				f.Fatalf("sqlite3: %v %s", err, out)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b, []byte(nil))
		}
	}
	f.Add([]byte("SQLite format 3\x00"), []byte("\x37\x7f\x06\x83"))
	f.Fuzz(func(t *testing.T, db, wal []byte) {
		lim := Limits{MaxObjects: 1000, MaxSchemaBytes: 1 << 20, MaxPayload: 1 << 20, MaxWALBytes: 1 << 20}
		_ = readAll(db, wal, lim)
	})
}
