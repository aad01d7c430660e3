package runtime

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
)

// BenchmarkInstanceCost measures what a provider costs the host at rest
// and what each further instance adds (docs/performance.md, "At the edge"):
//
//   - load-heap: the Go heap live after Load from a warm cache, a
//     collection later (wazero's compiled module, the host's state);
//   - load-rss: the process's resident anonymous memory that Load added
//     (the heap, the compiled code wazero maps, the first instance);
//   - inst-heap, inst-rss, inst-linear: per instance, over 8 more held at
//     once after one read each: the Go heap (wazero's module instance, the
//     host's buffers), the resident anonymous memory, and the linear memory
//     committed.
//
// MCPW_HEAP_PROFILE=DIR writes a heap profile per guest after the
// instances were made, for `go tool pprof -sample_index=inuse_space`.
//
//	go test ./runtime -run XXX -bench InstanceCost -benchtime 1x
func BenchmarkInstanceCost(b *testing.B) {
	guests := []benchGuest{
		{"c-files", func(tb testing.TB) string {
			return testguest.C(tb, "cfiles", "guests/c/mcpw.c", "guests/cfiles/cfiles.c")
		}},
		{"go-conformance", func(tb testing.TB) string { return testguest.Go(tb, "guests/conformance") }},
	}
	for _, g := range guests {
		b.Run(g.name, func(b *testing.B) {
			wasm := readFile(b, g.wasm(b))
			dir := filepath.Join(b.TempDir(), "cache")
			cfg := NewProviderConfig().WithPoolSize(16).WithGrants(Grants{Dirs: []DirGrant{{HostPath: b.TempDir()}}})
			warm := newTestRuntime(b, NewConfig().WithCacheDir(dir))
			p, err := warm.Load(context.Background(), g.name, wasm, cfg)
			if err != nil {
				b.Fatal(err)
			}
			_ = p.Close(context.Background())
			for b.Loop() {
				instanceCost(b, g.name, wasm, dir, cfg)
			}
		})
	}
}

func instanceCost(b *testing.B, name string, wasm []byte, cacheDir string, cfg ProviderConfig) {
	ctx := context.Background()
	heap0, rss0 := settled()
	rt := newTestRuntime(b, NewConfig().WithCacheDir(cacheDir))
	defer rt.Close(ctx)
	p, err := rt.Load(ctx, name, wasm, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close(ctx)
	heap1, rss1 := settled()
	const n = 8
	ins := make([]*instance, 0, n)
	var linear uint64
	for range n {
		in, err := p.newInstance(ctx)
		if err != nil {
			b.Fatal(err)
		}
		// One call, as a pooled instance has had: the guest's allocator
		// and runtime have set themselves up.
		if _, err := in.call(ctx, "describe", p.newState(nil)); err != nil {
			b.Fatal(err)
		}
		linear += uint64(in.memoryBytes())
		ins = append(ins, in)
	}
	heap2, rss2 := settled()
	if d := os.Getenv("MCPW_HEAP_PROFILE"); d != "" {
		f, err := os.Create(filepath.Join(d, name+".heap"))
		if err == nil {
			_ = pprof.WriteHeapProfile(f)
			_ = f.Close()
		}
	}
	for _, in := range ins {
		in.close(ctx)
	}
	b.ReportMetric(float64(heap1-heap0)/(1<<20), "load-heap-MiB")
	b.ReportMetric(float64(rss1-rss0)/(1<<20), "load-rss-MiB")
	b.ReportMetric(float64(heap2-heap1)/n/(1<<20), "inst-heap-MiB")
	b.ReportMetric(float64(rss2-rss1)/n/(1<<20), "inst-rss-MiB")
	b.ReportMetric(float64(linear)/n/(1<<20), "inst-linear-MiB")
}

// settled collects twice and returns the live heap and the resident
// anonymous memory of the process (smaps_rollup; 0 where there is none).
func settled() (heap, rss int64) {
	goruntime.GC()
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc), anonRSS()
}

func anonRSS() int64 {
	f, err := os.Open("/proc/self/smaps_rollup")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "Anonymous:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
