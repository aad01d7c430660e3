package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/compile"
)

// BenchmarkPreempt measures a guest export (benchRaw: the wazero call and
// the guest's work, under a fresh deadline) with each way of stopping a
// guest, side by side in one run: wazero's check at loop back-edges plus its
// watchdog goroutine ("wazero", what main did before), the module's own
// checkpoints ("instrument", the default), and nothing at all ("off", which
// cannot stop a guest and exists only as the floor). The ratio instrument/off
// is the cost of preemption. docs/performance.md has the numbers.
//
//	go test ./runtime -run XXX -bench Preempt -count 10 | benchstat -col /mode -
func BenchmarkPreempt(b *testing.B) {
	dir := b.TempDir()
	require.NoError(b, os.WriteFile(filepath.Join(dir, "1k.txt"), []byte(strings.Repeat("x", 1023)+"\n"), 0o644))
	fileInput := fmt.Sprintf(`{"uri":%q}`, (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, "1k.txt"))}).String())
	guests := []struct {
		name, op, input string
		wasm            func(testing.TB) string
		grants          Grants
	}{
		{"c-bench", "read", `{"uri":"bench:///1k"}`, benchGuests[0].wasm, Grants{}},
		{"go-bench", "read", `{"uri":"bench:///1k"}`, benchGuests[1].wasm, Grants{}},
		{"go-files", "read", fileInput, func(tb testing.TB) string { return testguest.Go(tb, "guests/files") },
			Grants{Dirs: []DirGrant{{HostPath: dir}}}},
		{"c-files", "read", fileInput, func(tb testing.TB) string { // the default provider, from its source
			return testguest.C(tb, "cfiles", "guests/c/mcpw.c", "guests/cfiles/cfiles.c")
		}, Grants{Dirs: []DirGrant{{HostPath: dir}}}},
	}
	modes := []struct {
		name string
		mode preemptMode
	}{{"wazero", preemptWazero}, {"instrument", preemptInstrument}, {"off", preemptOff}}
	for _, g := range guests {
		wasm := readFile(b, g.wasm(b))
		for _, m := range modes {
			b.Run("guest="+g.name+"/mode="+m.name, func(b *testing.B) {
				rt := newTestRuntime(b, NewConfig())
				cfg := NewProviderConfig().WithPoolSize(1).WithGrants(g.grants).withPreempt(m.mode)
				p := load(b, rt, wasm, cfg)
				benchRaw(b, p, g.op, g.input)
			})
		}
	}
}

// BenchmarkInstrument measures the structural pass plus the rewrite of a
// module (what every load adds before compiling), for the C and Go bench
// guests and the Go files provider.
func BenchmarkInstrument(b *testing.B) {
	for _, g := range []struct {
		name string
		wasm func(testing.TB) string
	}{{"c-bench", benchGuests[0].wasm}, {"go-bench", benchGuests[1].wasm}, {"go-files", func(tb testing.TB) string { return testguest.Go(tb, "guests/files") }}} {
		wasm := readFile(b, g.wasm(b))
		b.Run(g.name, func(b *testing.B) {
			b.SetBytes(int64(len(wasm)))
			for b.Loop() {
				if _, err := prepare(wasm, NewProviderConfig(), compile.RewriteCache{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDeadlineOverrun measures how long after its deadline a spinning
// guest's call returns, for each shape of spin.wasm: ns/op is a whole call
// with a 10 ms deadline; overrun-µs (median and worst of the run) is the
// time from the deadline to the return, which includes the host's own work
// after the stop (discarding the instance) and the scheduler's delay on a
// busy machine.
func BenchmarkDeadlineOverrun(b *testing.B) {
	spin := readFile(b, "../testdata/hostile/spin.wasm")
	for _, shape := range []string{"exprec", "mutual", "brtable", "loopif", "nested", "unwind", "fill"} {
		b.Run(shape, func(b *testing.B) {
			rt := newTestRuntime(b, NewConfig())
			const deadline = 10 * time.Millisecond
			p := load(b, rt, spin, NewProviderConfig().WithTimeout(deadline).WithPoolSize(1).WithQuarantine(1<<30, time.Second, time.Second))
			var overruns []time.Duration
			for b.Loop() {
				start := time.Now()
				_, err := p.Read(context.Background(), "evil:"+shape)
				if !errors.Is(err, abi.ErrTimeout) {
					b.Fatalf("want a timeout, got %v", err)
				}
				overruns = append(overruns, time.Since(start)-deadline)
			}
			slices.Sort(overruns)
			b.ReportMetric(float64(overruns[len(overruns)/2].Microseconds()), "median-overrun-µs")
			b.ReportMetric(float64(overruns[len(overruns)-1].Microseconds()), "worst-overrun-µs")
		})
	}
}

// BenchmarkCompile measures a cold load (no cache) of the C and Go bench
// guests and the Go files provider with the module as received and
// instrumented: what the structural pass, the rewrite and compiling the
// larger module add to a load.
func BenchmarkCompile(b *testing.B) {
	dir := b.TempDir()
	for _, g := range []struct {
		name   string
		wasm   func(testing.TB) string
		grants Grants
	}{{"c-bench", benchGuests[0].wasm, Grants{}}, {"go-bench", benchGuests[1].wasm, Grants{}},
		{"go-files", func(tb testing.TB) string { return testguest.Go(tb, "guests/files") }, Grants{Dirs: []DirGrant{{HostPath: dir}}}}} {
		wasm := readFile(b, g.wasm(b))
		for _, m := range []struct {
			name string
			mode preemptMode
		}{{"off", preemptOff}, {"instrument", preemptInstrument}} {
			b.Run("guest="+g.name+"/mode="+m.name, func(b *testing.B) {
				for b.Loop() {
					rt := newTestRuntime(b, NewConfig())
					cfg := NewProviderConfig().withPreempt(m.mode).WithGrants(g.grants)
					p, err := rt.Load(context.Background(), "x", wasm, cfg)
					if err != nil {
						b.Fatal(err)
					}
					_ = p.Close(context.Background())
					_ = rt.Close(context.Background())
				}
			})
		}
	}
}
