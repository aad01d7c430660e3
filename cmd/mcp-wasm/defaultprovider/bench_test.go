package defaultprovider_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/cmd/mcp-wasm/defaultprovider"
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
