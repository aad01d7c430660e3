package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/bench/benchprov"
	"github.com/mcp-wasm/mcp-wasm/guests/files/filesprov"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// BenchmarkReadStdio measures resources/read end to end through the MCP
// server over stdio framing (newline-delimited JSON-RPC on pipes), served by
// the files provider in the wasm sandbox ("wasm") and by the same provider
// logic compiled natively into the server ("native"). The difference is
// what the sandbox costs; docs/performance.md reports the ratio.
//
//	go test ./cmd/mcp-wasm -run XXX -bench ReadStdio -benchmem -count 5
func BenchmarkReadStdio(b *testing.B) {
	dir := b.TempDir()
	sizes := []struct {
		name string
		size int
	}{{"1KiB", 1 << 10}, {"1MiB", 1 << 20}}
	for _, s := range sizes {
		body := strings.Repeat("abcdefghijklmno\n", s.size/16)
		require.NoError(b, os.WriteFile(filepath.Join(dir, s.name+".txt"), []byte(body), 0o644))
	}
	wasm := benchWasmFiles(b, dir)
	root, err := filesprov.DirRoot(dir)
	require.NoError(b, err)
	native := &nativeProvider{p: filesprov.New(root), host: &mcpw.MapHost{Values: map[string]string{"max_file_bytes": "2000000"}}}
	for _, s := range sizes {
		for _, impl := range []struct {
			name string
			p    server.Provider
		}{{"native", native}, {"wasm", wasm}} {
			b.Run(s.name+"/"+impl.name, func(b *testing.B) {
				benchReadStdio(b, impl.p, "file://"+root.Path+"/"+s.name+".txt", s.size)
			})
		}
	}
}

// BenchmarkReadStdioBench is BenchmarkReadStdio for the bench provider
// (fixed in-memory resources, no file I/O): natively, as a Go guest and as
// a C guest. It isolates the sandbox's cost from a provider's own work.
//
//	go test ./cmd/mcp-wasm -run XXX -bench ReadStdioBench -benchmem -count 5
func BenchmarkReadStdioBench(b *testing.B) {
	impls := []struct {
		name string
		p    server.Provider
	}{
		{"native", &nativeProvider{p: benchprov.New(), host: &mcpw.MapHost{}}},
		{"wasm-go", benchLoad(b, testguest.Go(b, "guests/bench"))},
		{"wasm-c", benchLoad(b, testguest.C(b, "cbench", "guests/c/mcpw.c", "guests/cbench/cbench.c"))},
	}
	for _, size := range []struct {
		name, uri string
		n         int
	}{{"1KiB", "bench:///1k", 1 << 10}, {"1MiB", "bench:///1m", 1 << 20}} {
		for _, impl := range impls {
			b.Run(size.name+"/"+impl.name, func(b *testing.B) { benchReadStdio(b, impl.p, size.uri, size.n) })
		}
	}
}

func benchLoad(b *testing.B, path string) *runtime.Provider {
	ctx := context.Background()
	rt, err := runtime.New(ctx, runtime.NewConfig().WithLogger(warnLogger()))
	require.NoError(b, err)
	b.Cleanup(func() { _ = rt.Close(ctx) })
	p, err := rt.LoadFile(ctx, path, runtime.NewProviderConfig())
	require.NoError(b, err)
	b.Cleanup(func() { _ = p.Close(ctx) })
	return p
}

func benchWasmFiles(b *testing.B, dir string) *runtime.Provider { return benchWasmFilesT(b, dir) }

func benchWasmFilesT(b testing.TB, dir string) *runtime.Provider {
	ctx := context.Background()
	rt, err := runtime.New(ctx, runtime.NewConfig().WithLogger(warnLogger()))
	require.NoError(b, err)
	b.Cleanup(func() { _ = rt.Close(ctx) })
	wasm, err := os.ReadFile(testguest.Go(b, "guests/files"))
	require.NoError(b, err)
	cfg := runtime.NewProviderConfig().WithGrants(runtime.Grants{
		Dirs: []runtime.DirGrant{{HostPath: dir}}, Config: map[string]string{"max_file_bytes": "2000000"},
	})
	p, err := rt.Load(ctx, "files", wasm, cfg)
	require.NoError(b, err)
	b.Cleanup(func() { _ = p.Close(ctx) })
	return p
}

func benchReadStdio(b *testing.B, p server.Provider, uri string, size int) {
	srv, err := server.New(server.NewConfig().WithProviders(p).WithLogger(warnLogger()))
	require.NoError(b, err)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(context.Background(), inR, outW) }()
	out := bufio.NewReaderSize(outR, 4<<20)
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	_, err = io.WriteString(inW, init)
	require.NoError(b, err)
	_, err = out.ReadSlice('\n')
	require.NoError(b, err)
	req := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":%q}}`+"\n", uri))
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := inW.Write(req); err != nil {
			b.Fatal(err)
		}
		line, err := out.ReadSlice('\n')
		if err != nil || len(line) < size {
			b.Fatalf("response: %v (%d bytes): %.200s", err, len(line), line)
		}
	}
	_ = inW.Close()
	_ = outR.Close()
	<-done
}

// nativeProvider runs an SDK provider in-process, without the sandbox or
// the ABI: the baseline the wasm provider is compared against.
type nativeProvider struct {
	p    mcpw.Provider
	host *mcpw.MapHost
}

func (n *nativeProvider) ctx(ctx context.Context) context.Context { return mcpw.WithHost(ctx, n.host) }

func (n *nativeProvider) Describe() abi.Describe {
	d := n.p.Describe()
	d.Operations = nil
	for op, ok := range map[string]bool{
		abi.OpList: is[mcpw.Lister](n.p), abi.OpTemplates: is[mcpw.Templater](n.p),
		abi.OpRead: is[mcpw.Reader](n.p), abi.OpComplete: is[mcpw.Completer](n.p),
	} {
		if ok {
			d.Operations = append(d.Operations, op)
		}
	}
	return d
}

func is[T any](v any) bool { _, ok := v.(T); return ok }

func (n *nativeProvider) List(ctx context.Context, cursor string) (*abi.ListResult, error) {
	return n.p.(mcpw.Lister).List(n.ctx(ctx), cursor)
}

func (n *nativeProvider) Templates(ctx context.Context, cursor string) (*abi.TemplatesResult, error) {
	return n.p.(mcpw.Templater).Templates(n.ctx(ctx), cursor)
}

func (n *nativeProvider) Read(ctx context.Context, uri string) (*abi.ReadResult, error) {
	return n.p.(mcpw.Reader).Read(n.ctx(ctx), uri)
}

func (n *nativeProvider) Complete(ctx context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error) {
	return n.p.(mcpw.Completer).Complete(n.ctx(ctx), req)
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// warnLogger shows warnings (a failing provider call) during benchmarks.
func warnLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
