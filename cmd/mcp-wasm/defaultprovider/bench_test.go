package defaultprovider_test

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/cmd/mcp-wasm/defaultprovider"
	"github.com/mcp-wasm/mcp-wasm/guests/files/filesprov"
	"github.com/mcp-wasm/mcp-wasm/internal/loadtest"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// BenchmarkLoad measures what a restarted `mcp-wasm serve` spends to have
// the embedded default provider ready: a new Runtime on a warm compilation
// cache, Load with a granted directory (the structural pass, the rewrite,
// the cache hit, link, instantiate, _initialize, describe), then Close.
// docs/performance.md reports it.
//
//	go test ./cmd/mcp-wasm/defaultprovider -run XXX -bench Load -count 6
func BenchmarkLoad(b *testing.B) {
	ctx := context.Background()
	dir, cache := b.TempDir(), filepath.Join(b.TempDir(), "cache")
	cfg := runtime.NewProviderConfig().WithGrants(runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: dir}}})
	load := func() {
		rt, err := runtime.New(ctx, runtime.NewConfig().WithCacheDir(cache))
		require.NoError(b, err)
		p, err := rt.Load(ctx, "files", defaultprovider.Wasm(), cfg)
		require.NoError(b, err)
		require.NoError(b, p.Close(ctx))
		require.NoError(b, rt.Close(ctx))
	}
	load() // fills the cache
	b.ReportAllocs()
	for b.Loop() {
		load()
	}
}

// BenchmarkRead reads one 1 KiB file of a granted directory through the
// embedded default provider (runtime.Provider.Read: pool, deadline, guest,
// the grant's file system, decoding) and through the Go files provider
// compiled natively (what `mcp-wasm-load files` runs as its anchor), each
// from a fresh goroutine as the MCP server calls them. wasm minus native is
// the sandbox's cost of a read below the MCP layer; wasm+cache has the
// read cache on (the default), which answers all but the first read after
// re-checking the file.
//
// The -idle variants sleep 100 µs (untimed) before each read, as a server
// does between requests: the thread parks and the caches and TLBs go cold.
// In a tight loop the sandbox's code and memory stay warm, which hides what
// it costs over stdio; docs/performance.md compares the two.
//
//	go test ./cmd/mcp-wasm/defaultprovider -run XXX -bench Read -benchmem -count 6
func BenchmarkRead(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	// The file mcp-wasm-load files reads: no extension, so the provider
	// looks at the content to tell text from binary.
	require.NoError(b, os.WriteFile(filepath.Join(dir, "f"), bytes.Repeat([]byte("abcdefghijklmno\n"), 64), 0o644))
	uri := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, "f"))}).String()

	load := func(cfg runtime.Config) *runtime.Provider {
		rt, err := runtime.New(ctx, cfg)
		require.NoError(b, err)
		b.Cleanup(func() { _ = rt.Close(ctx) })
		p, err := rt.Load(ctx, "files", defaultprovider.Wasm(),
			runtime.NewProviderConfig().WithGrants(runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: dir}}}))
		require.NoError(b, err)
		return p
	}
	wasm := load(runtime.NewConfig().WithReadCache(0))
	cached := load(runtime.NewConfig()) // the read cache on, as by default
	root, err := filesprov.DirRoot(dir)
	require.NoError(b, err)
	native := loadtest.NewNative(filesprov.New(root))

	for _, idle := range []time.Duration{0, 100 * time.Microsecond} {
		for _, p := range []struct {
			name string
			read func(context.Context, string) (*abi.ReadResult, error)
		}{{"wasm", wasm.Read}, {"wasm+cache", cached.Read}, {"native", native.Read}} {
			name := p.name
			if idle > 0 {
				name += "-idle"
			}
			b.Run(name, func(b *testing.B) {
				errc := make(chan error)
				b.ReportAllocs()
				for b.Loop() {
					if idle > 0 {
						b.StopTimer()
						time.Sleep(idle)
						b.StartTimer()
					}
					go func() {
						r, err := p.read(ctx, uri)
						if err == nil && (len(r.Contents) != 1 || r.Contents[0].Text == nil || len(*r.Contents[0].Text) != 1024) {
							err = fmt.Errorf("read %s: not the file's 1 KiB", uri)
						}
						errc <- err
					}()
					if err := <-errc; err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
