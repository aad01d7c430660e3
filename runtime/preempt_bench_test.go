package runtime

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
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
	guests := []struct {
		name, op, input string
		wasm            func(testing.TB) string
		grants          Grants
	}{
		{"c-bench", "read", `{"uri":"bench:///1k"}`, benchGuests[0].wasm, Grants{}},
		{"go-bench", "read", `{"uri":"bench:///1k"}`, benchGuests[1].wasm, Grants{}},
		{"go-files", "read", `{"uri":"file:///1k.txt"}`, func(tb testing.TB) string { return testguest.Go(tb, "guests/files") },
			Grants{Dirs: []DirGrant{{HostPath: dir}}}},
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
				if _, err := prepare(wasm, NewProviderConfig()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	_ = context.Background
}
