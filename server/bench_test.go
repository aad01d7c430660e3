package server

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/server/servertest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

var benchSizes = []struct {
	name string
	size int
}{{"1KiB", 1 << 10}, {"1MiB", 1 << 20}}

func benchServer(b *testing.B, size int) *Server {
	p := servertest.New("bench", abi.URIRoot{Scheme: "bench"}).
		AddText("bench:///doc", "text/plain", strings.Repeat("x", size))
	return newServer(b, NewConfig().WithProviders(p).WithLogger(slog.New(slog.DiscardHandler)))
}

// BenchmarkServer_read measures resources/read end to end through the
// server with the native provider, driven by the go-sdk client over an
// in-memory pipe (JSON encoding and decoding on both sides included).
func BenchmarkServer_read(b *testing.B) {
	for _, bs := range benchSizes {
		b.Run(bs.name, func(b *testing.B) {
			cs := connect(b, benchServer(b, bs.size), "2025-11-25")
			params := &mcp.ReadResourceParams{URI: "bench:///doc"}
			b.SetBytes(int64(bs.size))
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.ReadResource(context.Background(), params)
				if err != nil || len(res.Contents[0].Text) != bs.size {
					b.Fatalf("read: %v", err)
				}
			}
		})
	}
}

// BenchmarkServer_readStdio measures resources/read through ServeStdio: one
// newline-delimited request written, one response line read, as a stdio
// client sees it (no client-side decoding).
func BenchmarkServer_readStdio(b *testing.B) {
	for _, bs := range benchSizes {
		b.Run(bs.name, func(b *testing.B) {
			s := benchServer(b, bs.size)
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() { done <- s.ServeStdio(context.Background(), inR, outW) }()
			out := bufio.NewReaderSize(outR, 2<<20)
			req := []byte(readLine(1, "bench:///doc"))
			b.SetBytes(int64(bs.size))
			b.ReportAllocs()
			for b.Loop() {
				_, err := inW.Write(req)
				require.NoError(b, err)
				line, err := out.ReadSlice('\n')
				if err != nil || len(line) < bs.size {
					b.Fatalf("response: %v (%d bytes)", err, len(line))
				}
			}
			_ = inW.Close()
			_ = outR.Close()
			require.NoError(b, <-done)
		})
	}
}
