package testkit

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
)

// LimitsJSON is the "limits" members of a config file that set the three
// time limits to Patient, for a test's config text: a test that writes a
// provider's limits writes these among them.
func LimitsJSON() string {
	p := Patient.String()
	return fmt.Sprintf(`"timeout": %q, "initTimeout": %q, "compileTimeout": %q`, p, p, p)
}

// FilesConfig is a config file serving the files provider (files.wasm in
// the config's directory) over the directory named data, mapped to /data
// in the guest so that a reload to another directory keeps the URIs
// (file:///data/...), with pool instances and patient limits.
func FilesConfig(data string, pool int) string {
	return fmt.Sprintf(`{"providers": [{"module": "files.wasm", "grants": {"dirs": [{"host": %q, "guest": "/data"}]}, "limits": {"poolSize": %d, %s}}]}`,
		data, pool, LimitsJSON())
}

// Reload is a served config directory for the tests of reloading: a copy
// of the files provider as files.wasm, two data directories a/ and b/
// whose same.txt differ, and mcp.json serving a/; the test connects CS.
type Reload struct {
	Dir, Path string
	Logs      *testlog.Buffer
	CS        *mcp.ClientSession
	Listed    atomic.Int64 // list_changed notifications received
}

// NewReload writes the directory, with filesWasm (the files provider's
// bytes) as files.wasm: a copy, since the tests change its mtime.
func NewReload(tb testing.TB, filesWasm []byte) *Reload {
	tb.Helper()
	f := &Reload{Dir: tb.TempDir(), Logs: &testlog.Buffer{}}
	f.Path = filepath.Join(f.Dir, "mcp.json")
	require.NoError(tb, os.WriteFile(filepath.Join(f.Dir, "files.wasm"), filesWasm, 0o644))
	for _, d := range []string{"a", "b"} {
		require.NoError(tb, os.Mkdir(filepath.Join(f.Dir, d), 0o755))
		require.NoError(tb, os.WriteFile(filepath.Join(f.Dir, d, "same.txt"), []byte("from "+d), 0o644))
	}
	f.Write(tb, FilesConfig("a", 2))
	return f
}

// ListChanged is a client handler counting list_changed into Listed.
func (f *Reload) ListChanged(context.Context, *mcp.ResourceListChangedRequest) { f.Listed.Add(1) }

// Write replaces mcp.json atomically, as editors and config managers do.
func (f *Reload) Write(tb testing.TB, text string) {
	tb.Helper()
	WriteAtomic(tb, f.Path, text)
}

// Read reads same.txt through CS.
func (f *Reload) Read(tb testing.TB) string {
	tb.Helper()
	res, err := f.CS.ReadResource(tb.Context(), &mcp.ReadResourceParams{URI: "file:///data/same.txt"})
	require.NoError(tb, err)
	return res.Contents[0].Text
}

// Readers reads same.txt from n goroutines until stop is called, which
// returns the number of reads, of failed reads, and the first failure.
func (f *Reload) Readers(n int) (stop func() (reads, failed int64, firstErr error)) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var reads, failed atomic.Int64
	var once sync.Once
	var first error
	for range n {
		wg.Go(func() {
			for ctx.Err() == nil {
				_, err := f.CS.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "file:///data/same.txt"})
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
