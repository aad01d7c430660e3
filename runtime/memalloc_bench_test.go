package runtime

import (
	"context"
	"fmt"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/memalloc"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkGrow measures what growing linear memory costs: each op is a
// read on a fresh instance (the pool recycles after every call) that grows
// one page at a time to the cap and touches every page (hostile grow.wat,
// evil:grow), then the instance's close. "mapped" is the reservation
// (internal/memalloc), "heap" the fallback; B/op counts the Go heap bytes,
// the copies among them. Results are in docs/performance.md.
//
//	go test ./runtime -run XXX -bench Grow -benchmem -count 5
func BenchmarkGrow(b *testing.B) {
	wasm := readFile(b, filepath.Join("..", "testdata", "hostile", "grow.wasm"))
	for _, limit := range []uint64{4 << 20, 64 << 20, 1 << 30} {
		for _, alloc := range []string{"mapped", "heap"} {
			b.Run(fmt.Sprintf("%dMiB/%s", limit>>20, alloc), func(b *testing.B) {
				if alloc == "heap" {
					defer memalloc.HeapOnly()()
				}
				rt := newTestRuntime(b, NewConfig())
				p := load(b, rt, wasm, NewProviderConfig().WithMemoryLimit(limit).WithPoolSize(1).WithRecycleAfter(1).
					WithTimeout(time.Minute)) // not about the deadline: growing to 1 GiB on the heap takes seconds
				want := fmt.Sprint(limit >> 16)
				ctx := context.Background()
				for b.Loop() {
					res, err := p.Read(ctx, "evil:grow")
					if err != nil || *res.Contents[0].Text != want {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
