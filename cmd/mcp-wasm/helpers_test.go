package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testlog"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// writeConfig writes text as mcp.json in a fresh directory holding copies
// of minimal.wasm and good.wasm, and a docs/ directory.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range map[string]string{"minimal.wasm": fixture("wat", "minimal.wasm"), "good.wasm": fixture("hostile", "good.wasm")} {
		b, err := os.ReadFile(src)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "docs"), 0o755))
	path := filepath.Join(dir, "mcp.json")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// filesConfig is a config serving the embedded files provider (files.wasm
// in dir) over the directory named data, mapped to /data in the guest so
// that a reload to another directory keeps the URIs (file:///data/...).
func filesConfig(data string, pool int) string {
	return fmt.Sprintf(`{"providers": [{"module": "files.wasm", "grants": {"dirs": [{"host": %q, "guest": "/data"}]}, "limits": {"poolSize": %d}}]}`, data, pool)
}

// uriIn is the URI the files provider gives the file at rel (already
// escaped) in the granted directory dir: dir's real path, escaped, then rel.
func uriIn(t testing.TB, dir, rel string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	at, _, err := runtime.MountedAt(runtime.DirGrant{HostPath: real})
	require.NoError(t, err)
	return fileURI(at) + "/" + rel
}

// reloadFixture is a served config directory: files.wasm, two data
// directories a/ and b/ whose same.txt differ, and mcp.json, with a client.
type reloadFixture struct {
	dir, path string
	logs      *testlog.Buffer
	cs        *mcp.ClientSession
	listed    atomic.Int64 // list_changed notifications received
}

func (f *reloadFixture) write(t *testing.T, text string) {
	t.Helper()
	tmp := f.path + ".tmp"
	require.NoError(t, os.WriteFile(tmp, []byte(text), 0o644))
	require.NoError(t, os.Rename(tmp, f.path)) // atomic, as editors and config managers do
}

func (f *reloadFixture) read(t *testing.T) string {
	t.Helper()
	res, err := f.cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "file:///data/same.txt"})
	require.NoError(t, err)
	return res.Contents[0].Text
}

// readers reads same.txt from n goroutines until stop is called, which
// returns the number of reads and of failed reads.
func (f *reloadFixture) readers(n int) (stop func() (reads, failed int64, firstErr error)) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var reads, failed atomic.Int64
	var once sync.Once
	var first error
	for range n {
		wg.Go(func() {
			for ctx.Err() == nil {
				_, err := f.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "file:///data/same.txt"})
				reads.Add(1)
				if err != nil {
					failed.Add(1)
					once.Do(func() { first = err })
				}
			}
		})
	}
	return func() (int64, int64, error) {
		cancel()
		wg.Wait()
		return reads.Load(), failed.Load(), first
	}
}
