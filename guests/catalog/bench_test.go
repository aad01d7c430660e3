package catalog_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// BenchmarkCatalog measures each SDK's catalog module: its size (the
// wasm-bytes metric), a load from a warm disk cache in a new Runtime (as a
// restarted server sees it: read the compiled code, link, instantiate,
// initialize, describe), and a 1 KiB read through runtime.Provider.Read
// with every limit on and the host's read cache off: the catalog's cache
// hint (60 s, public) would otherwise answer every read but the first
// from the cache, and the guest would not run. docs/performance.md has
// the table and the command.
func BenchmarkCatalog(b *testing.B) {
	ctx := context.Background()
	for _, s := range sdks {
		wasm, err := os.ReadFile(s.build(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(s.name+"/load-cache-hit", func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "cache")
			loadOnce(b, dir, s.name, wasm)
			for b.Loop() {
				loadOnce(b, dir, s.name, wasm)
			}
			b.ReportMetric(float64(len(wasm)), "wasm-bytes")
		})
		b.Run(s.name+"/read1k", func(b *testing.B) {
			rt, err := runtime.New(ctx, runtime.NewConfig().WithReadCache(0))
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = rt.Close(ctx) }()
			p, err := rt.Load(ctx, s.name, wasm, runtime.NewProviderConfig().WithPoolSize(1))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				r, err := p.Read(ctx, "catalog:///items/kib")
				if err != nil || len(*r.Contents[0].Text) != 1024 {
					b.Fatal(err)
				}
			}
			if st := p.Stats(); st.CacheHits != 0 || st.Calls < uint64(b.N) {
				b.Fatalf("%d reads, %d guest calls, %d cache hits: every read must run the guest", b.N, st.Calls, st.CacheHits)
			}
		})
	}
}

// loadOnce loads the module in a new Runtime with the disk cache at dir.
func loadOnce(b *testing.B, dir, name string, wasm []byte) {
	ctx := context.Background()
	rt, err := runtime.New(ctx, runtime.NewConfig().WithCacheDir(dir))
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = rt.Close(ctx) }()
	p, err := rt.Load(ctx, name, wasm, runtime.NewProviderConfig())
	if err != nil {
		b.Fatal(err)
	}
	_ = p.Close(ctx)
}
