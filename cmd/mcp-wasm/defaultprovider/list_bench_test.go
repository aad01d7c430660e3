package defaultprovider_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/cmd/mcp-wasm/defaultprovider"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// listBenchFiles is how many files BenchmarkList lists (issue 31).
const listBenchFiles = 10_000

// BenchmarkList lists a directory of 10,000 files, every page, with the
// official go-sdk client over the same transport (newline-delimited JSON
// on in-process pipes, as stdio) from three servers:
//
//   - gosdk-memory: a go-sdk mcp.Server holding the same 10,000 resources
//     in memory (mcp.Server.AddResource), what a Go developer would write;
//   - wasm: mcp-wasm's server with the embedded default provider, the list
//     cache off: every listing walks the tree and stats every file in the
//     guest;
//   - wasm+listcache: the same with the host's list cache (the default),
//     the provider's change feed running as serve runs it, so an unchanged
//     tree is listed from the cache.
//
// Besides the wall time it reports cpu-ns/op, the process's CPU time (the
// client's and the server's) per listing: on a busy machine the wall time
// says more about the neighbours than about the servers.
//
// The client speaks 2025-11-25: on 2026-07-28 the go-sdk client would
// answer repeated pages from its own cache while their ttlMs lasts.
// docs/performance.md ("Lists") reports the ratios.
//
//	go test ./cmd/mcp-wasm/defaultprovider -run XXX -bench List -benchmem -count 6
func BenchmarkList(b *testing.B) {
	ctx := b.Context()
	dir := b.TempDir()
	for i := range listBenchFiles {
		name := filepath.Join(dir, fmt.Sprintf("d%02d", i%100), fmt.Sprintf("file-%05d.txt", i))
		require.NoError(b, os.MkdirAll(filepath.Dir(name), 0o755))
		require.NoError(b, os.WriteFile(name, []byte("some text\n"), 0o644))
	}
	rt, err := runtime.New(ctx, runtime.NewConfig().WithReadCache(0))
	require.NoError(b, err)
	b.Cleanup(func() { _ = rt.Close(context.Background()) })
	p, err := rt.Load(ctx, "files", defaultprovider.Wasm(),
		runtime.NewProviderConfig().WithGrants(runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: dir}}}))
	require.NoError(b, err)

	wasm := wasmServer(b, p, 0)
	cached := wasmServer(b, p, server.DefaultListCache)
	startFeed(b, p, cached)

	resources := listAll(b, stdioClient(b, func(ctx context.Context, e *pipeEnds) error {
		return wasm.ServeStdio(ctx, e.in, e.out)
	}))
	require.Len(b, resources, listBenchFiles)
	mem := mcp.NewServer(&mcp.Implementation{Name: "gosdk-memory", Version: "1"}, &mcp.ServerOptions{PageSize: server.DefaultPageSize})
	for _, r := range resources {
		mem.AddResource(r, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, mcp.ResourceNotFoundError(r.URI)
		})
	}

	for _, s := range []struct {
		name  string
		serve func(context.Context, *pipeEnds) error
	}{
		{"gosdk-memory", func(ctx context.Context, e *pipeEnds) error {
			return mem.Run(ctx, &mcp.IOTransport{Reader: e.in, Writer: e.out})
		}},
		{"wasm", func(ctx context.Context, e *pipeEnds) error {
			return wasm.ServeStdio(ctx, e.in, e.out)
		}},
		{"wasm+listcache", func(ctx context.Context, e *pipeEnds) error {
			return cached.ServeStdio(ctx, e.in, e.out)
		}},
	} {
		b.Run(s.name, func(b *testing.B) {
			cs := stdioClient(b, s.serve)
			listAll(b, cs) // warm: instances, and the cache where there is one
			b.ReportAllocs()
			cpu := cpuTime(b)
			for b.Loop() {
				if n := len(listAll(b, cs)); n != listBenchFiles {
					b.Fatalf("listed %d resources, want %d", n, listBenchFiles)
				}
			}
			b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the CPU time the process has used, user and system, in ns:
// client and server together, as the wall time is on a loaded machine
// anything but the cost.
func cpuTime(b *testing.B) int64 {
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// wasmServer is mcp-wasm's server over p with a list cache of budget bytes.
func wasmServer(b *testing.B, p server.Provider, budget int64) *server.Server {
	s, err := server.New(server.NewConfig().WithProviders(p).WithListCache(budget).
		WithLogger(slog.New(slog.DiscardHandler)).WithImplementation("mcp-wasm", "bench"))
	require.NoError(b, err)
	return s
}

// pipeEnds is the server's side of a pipe pair.
type pipeEnds struct {
	in  *io.PipeReader
	out *io.PipeWriter
}

// clientOn connects client to serve over two pipes, speaking 2025-11-25.
func clientOn(tb testing.TB, client *mcp.Client, serve func(context.Context, *pipeEnds) error) *mcp.ClientSession {
	toServerR, toServerW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = serve(ctx, &pipeEnds{in: toServerR, out: toClientW})
		_ = toClientW.Close()
	}()
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: toClientR, Writer: toServerW},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(tb, err)
	tb.Cleanup(func() {
		_ = cs.Close()
		_ = toServerW.Close()
		cancel()
		<-done
	})
	return cs
}

// stdioClient connects a go-sdk client to serve.
func stdioClient(b *testing.B, serve func(context.Context, *pipeEnds) error) *mcp.ClientSession {
	return clientOn(b, mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil), serve)
}

// listAll lists every page.
func listAll(b *testing.B, cs *mcp.ClientSession) []*mcp.Resource {
	var out []*mcp.Resource
	params := &mcp.ListResourcesParams{}
	for {
		res, err := cs.ListResources(context.Background(), params)
		require.NoError(b, err)
		out = append(out, res.Resources...)
		if res.NextCursor == "" {
			return out
		}
		params.Cursor = res.NextCursor
	}
}
