package runtime

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
)

// Benchmarks of the runtime's per-call overhead, on the bench provider built
// as a C guest (guests/cbench) and a Go guest (guests/bench). Results and
// the command that produced them are in docs/performance.md.
//
//	go test ./runtime -run XXX -bench . -benchmem -count 5

type benchGuest struct {
	name string
	wasm func(testing.TB) string
}

var benchGuests = []benchGuest{
	{"c", func(tb testing.TB) string {
		return testguest.C(tb, "cbench", "guests/c/mcpw.c", "guests/cbench/cbench.c")
	}},
	{"go", func(tb testing.TB) string { return testguest.Go(tb, "guests/bench") }},
}

func readFile(tb testing.TB, path string) []byte {
	b, err := os.ReadFile(path)
	require.NoError(tb, err)
	return b
}

// BenchmarkCall measures one operation end to end through Provider (full:
// deadline, pool, input encoding, strict decoding and validation), and the
// same export called directly on a warm instance (guest: wazero call and
// guest work only, with the same deadline). full minus guest is the host's
// overhead.
func BenchmarkCall(b *testing.B) {
	for _, g := range benchGuests {
		b.Run(g.name, func(b *testing.B) {
			rt := newTestRuntime(b, NewConfig())
			p := load(b, rt, readFile(b, g.wasm(b)), NewProviderConfig().WithPoolSize(1))
			ctx := context.Background()
			b.Run("read1k/full", func(b *testing.B) {
				for b.Loop() {
					if _, err := p.Read(ctx, "bench:///1k"); err != nil {
						b.Fatal(err)
					}
				}
			})
			// As the MCP server calls: each request on a goroutine of its
			// own, whose stack starts small.
			b.Run("read1k/goroutine", func(b *testing.B) {
				errc := make(chan error)
				for b.Loop() {
					go func() {
						_, err := p.Read(ctx, "bench:///1k")
						errc <- err
					}()
					if err := <-errc; err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("read1k/guest", func(b *testing.B) { benchRaw(b, p, "read", `{"uri":"bench:///1k"}`) })
			b.Run("list100/full", func(b *testing.B) {
				for b.Loop() {
					if r, err := p.List(ctx, ""); err != nil || len(r.Resources) != 100 {
						b.Fatal(err)
					}
				}
			})
			b.Run("list100/guest", func(b *testing.B) { benchRaw(b, p, "list", `{}`) })
		})
	}
}

// benchRaw calls op's export on a pooled instance with a fresh deadline per
// call, skipping everything else the runtime does.
func benchRaw(b *testing.B, p *Provider, op, input string) {
	ctx := context.Background()
	in, err := p.pool.acquire(ctx, func(context.Context) error { return nil })
	require.NoError(b, err)
	defer p.pool.release(ctx, in, true)
	for b.Loop() {
		st := p.newState([]byte(input))
		cctx, cancel := context.WithTimeout(ctx, p.cfg.timeout)
		status, err := in.call(cctx, op, st)
		cancel()
		if err != nil || status != 0 || len(st.output) == 0 {
			b.Fatal(err, status)
		}
	}
}

// BenchmarkInstantiate measures a fresh instance (what a fault costs).
func BenchmarkInstantiate(b *testing.B) {
	for _, g := range benchGuests {
		b.Run(g.name, func(b *testing.B) {
			rt := newTestRuntime(b, NewConfig())
			p := load(b, rt, readFile(b, g.wasm(b)), NewProviderConfig())
			ctx := context.Background()
			for b.Loop() {
				in, err := p.newInstance(ctx)
				if err != nil {
					b.Fatal(err)
				}
				in.close(ctx)
			}
		})
	}
}

// BenchmarkLoad measures Load (compile, link, instantiate, describe) with a
// cold compiler and with a warm on-disk cache in a new Runtime, as a
// restarted server sees it.
func BenchmarkLoad(b *testing.B) {
	for _, g := range benchGuests {
		wasm := readFile(b, g.wasm(b))
		b.Run(g.name+"/cold", func(b *testing.B) {
			for b.Loop() {
				rt := newTestRuntime(b, NewConfig())
				benchLoadOnce(b, rt, wasm)
				_ = rt.Close(context.Background())
			}
		})
		b.Run(g.name+"/cache-hit", func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "cache")
			warm := newTestRuntime(b, NewConfig().WithCacheDir(dir))
			benchLoadOnce(b, warm, wasm)
			for b.Loop() {
				rt := newTestRuntime(b, NewConfig().WithCacheDir(dir))
				benchLoadOnce(b, rt, wasm)
				_ = rt.Close(context.Background())
			}
		})
	}
}

func benchLoadOnce(b *testing.B, rt *Runtime, wasm []byte) {
	p, err := rt.Load(context.Background(), "bench", wasm, NewProviderConfig())
	if err != nil {
		b.Fatal(err)
	}
	_ = p.Close(context.Background())
}
