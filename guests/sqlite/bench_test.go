package main_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-wasm/mcp-wasm/guests/sqlite/internal/sqlitetest"
	"github.com/mcp-wasm/mcp-wasm/guests/sqlite/sqlitefmt"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// BenchmarkSchema1000 reads the schema of a 1,000-table database (1,000
// tables and 1,000 indexes) three ways, side by side in one run:
//
//   - shell: the sqlite3 shell's .schema, a process per op; cpu-ns/op is
//     the child's user+system time;
//   - native: this provider's reader in Go on the host (open, read every
//     sqlite_schema row, write every statement as .schema would);
//   - wasm/changed: the sqlite.wasm guest through the runtime, deadline
//     and limits on, reading the summary after a write moved the header, so
//     that the instance reads and indexes the whole schema again (the write
//     is outside the timer); wasm/unchanged: the same read when nothing
//     changed.
//
// native and wasm/changed report this process's CPU time per op as cpu-ns/op
// too (getrusage; around the reads only), the number to hold against the
// shell's on a machine whose other load makes wall time mostly waiting.
//
// Run: go test ./guests/sqlite -run XXX -bench Schema1000 -count 3
func BenchmarkSchema1000(b *testing.B) {
	sh := sqlitetest.Shell(b)
	dir := b.TempDir()
	db := filepath.Join(dir, "big.db")
	var script strings.Builder
	script.WriteString("BEGIN;\n")
	for i := range 1000 {
		fmt.Fprintf(&script, "CREATE TABLE t%04d(id INTEGER PRIMARY KEY, name TEXT NOT NULL, parent INT REFERENCES t%04d(id), note TEXT DEFAULT 'n');\n", i, max(i-1, 0))
		fmt.Fprintf(&script, "CREATE INDEX t%04d_name ON t%04d(name);\n", i, i)
	}
	script.WriteString("COMMIT;\n")
	shell := func(sql string, out io.Writer) *os.ProcessState {
		cmd := exec.Command(sh, "-batch", db)
		cmd.Stdin, cmd.Stdout = strings.NewReader(sql), out
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		return cmd.ProcessState
	}
	shell(script.String(), io.Discard)

	b.Run("shell", func(b *testing.B) {
		var cpu time.Duration
		for b.Loop() {
			st := shell(".schema\n", io.Discard)
			cpu += st.UserTime() + st.SystemTime()
		}
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	})
	b.Run("native", func(b *testing.B) {
		var out bytes.Buffer
		start := processCPU()
		defer func() { b.ReportMetric(float64((processCPU()-start).Nanoseconds())/float64(max(b.N, 1)), "cpu-ns/op") }()
		for b.Loop() {
			out.Reset()
			f, err := os.Open(db)
			if err != nil {
				b.Fatal(err)
			}
			info, _ := f.Stat()
			d, err := sqlitefmt.Open(f, info.Size(), nil, 0, sqlitefmt.Limits{})
			if err != nil {
				b.Fatal(err)
			}
			objs, err := d.Schema()
			if err != nil {
				b.Fatal(err)
			}
			for _, o := range objs {
				if o.HasSQL {
					out.WriteString(o.SQL)
					out.WriteString(";\n")
				}
			}
			f.Close()
		}
	})
	b.Run("wasm", func(b *testing.B) {
		ctx := context.Background()
		rt, err := runtime.New(ctx, runtime.NewConfig().WithCacheDir(filepath.Join(testguest.Root(), "build", "runtime-test-cache")))
		if err != nil {
			b.Fatal(err)
		}
		defer rt.Close(ctx)
		cfg := runtime.NewProviderConfig().WithPoolSize(1).WithCompileTimeout(10 * time.Minute).
			WithGrants(runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: dir, GuestPath: "/data"}}})
		p, err := rt.LoadFile(ctx, testguest.Go(b, "guests/sqlite"), cfg)
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close(ctx)
		n := 0
		b.Run("changed", func(b *testing.B) {
			var cpu time.Duration // this process's, around the reads only
			for b.Loop() {
				b.StopTimer()
				n++
				shell(fmt.Sprintf("PRAGMA user_version=%d;\n", n), io.Discard)
				b.StartTimer()
				start := processCPU()
				res, err := p.Read(ctx, "sqlite://big.db/")
				cpu += processCPU() - start
				if err != nil {
					b.Fatal(err)
				}
				if !strings.Contains(*res.Contents[0].Text, fmt.Sprintf(`"userVersion": %d`, n)) {
					b.Fatalf("read an old schema: %s", *res.Contents[0].Text)
				}
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
		// The same read when nothing changed: the instance checks the
		// file's stamp and answers from what it read before.
		b.Run("unchanged", func(b *testing.B) {
			for b.Loop() {
				if _, err := p.Read(ctx, "sqlite://big.db/"); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// BenchmarkLoad: a new runtime loading sqlite.wasm from a warm compilation
// cache (link, instantiate, _initialize, describe), granted a directory.
func BenchmarkLoad(b *testing.B) {
	ctx := context.Background()
	wasm, dir := testguest.Go(b, "guests/sqlite"), b.TempDir()
	cache := filepath.Join(testguest.Root(), "build", "runtime-test-cache")
	cfg := runtime.NewProviderConfig().WithPoolSize(1).WithCompileTimeout(10 * time.Minute).
		WithGrants(runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: dir, GuestPath: "/data"}}})
	load := func() {
		rt, err := runtime.New(ctx, runtime.NewConfig().WithCacheDir(cache))
		if err != nil {
			b.Fatal(err)
		}
		p, err := rt.LoadFile(ctx, wasm, cfg)
		if err != nil {
			b.Fatal(err)
		}
		_ = p.Close(ctx)
		_ = rt.Close(ctx)
	}
	load() // fills the cache
	for b.Loop() {
		load()
	}
}
