package filesprov

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

var space = abi.URISpace{{Scheme: scheme}}

// tree writes files (relative path -> contents) under a new temp dir.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, body := range files {
		write(t, root, rel, body)
	}
	return root
}

func write(t *testing.T, root, rel, body string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	mtime := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	require.NoError(t, os.Chtimes(p, mtime, mtime))
}

// harness runs a files provider over root through the SDK, as the wasm
// exports do, with the given config.
type harness struct {
	t    *testing.T
	p    *files
	host *mcpw.MapHost
}

func newHarness(t *testing.T, root string, config map[string]string) *harness {
	return &harness{t: t, p: newFiles([]Root{{Path: testMount, FS: os.DirFS(root)}}), host: &mcpw.MapHost{Values: config}}
}

func (h *harness) ctx() context.Context { return mcpw.WithHost(context.Background(), h.host) }

// ok calls op with the request encoded as JSON and strictly decodes the
// result into v.
func (h *harness) ok(op string, req any, v any) {
	h.t.Helper()
	in, err := json.Marshal(req)
	require.NoError(h.t, err)
	status, out := mcpw.Dispatch(h.ctx(), h.p, op, in)
	require.Equal(h.t, abi.StatusOK, status, "output: %s", out)
	require.NoError(h.t, abi.Decode(out, v))
}

// fail calls op and returns the error payload.
func (h *harness) fail(op string, req any) abi.Error {
	h.t.Helper()
	in, err := json.Marshal(req)
	require.NoError(h.t, err)
	status, out := mcpw.Dispatch(h.ctx(), h.p, op, in)
	require.Equal(h.t, abi.StatusError, status, "output: %s", out)
	var e abi.Error
	require.NoError(h.t, abi.Decode(out, &e))
	return e
}

func (h *harness) read(uri string) abi.ReadResult {
	h.t.Helper()
	var r abi.ReadResult
	h.ok(abi.OpRead, abi.ReadRequest{URI: uri}, &r)
	require.NoError(h.t, r.Validate(space))
	return r
}

// listAll pages through list and returns every name and the page count.
func (h *harness) listAll() ([]string, int) {
	h.t.Helper()
	var names []string
	cursor, pages := "", 0
	for {
		var page abi.ListResult
		h.ok(abi.OpList, abi.PageRequest{Cursor: cursor}, &page)
		require.NoError(h.t, page.Validate(space))
		for _, r := range page.Resources {
			names = append(names, r.Name)
		}
		pages++
		if page.NextCursor == "" {
			return names, pages
		}
		cursor = page.NextCursor
	}
}

// countingFS counts ReadDir calls.
type countingFS struct {
	fs.FS
	readDirs atomic.Int64
}

func (c *countingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	c.readDirs.Add(1)
	return fs.ReadDir(c.FS, name)
}

func (c *countingFS) Lstat(name string) (fs.FileInfo, error) { return fs.Lstat(c.FS, name) }

func (c *countingFS) ReadLink(name string) (string, error) { return fs.ReadLink(c.FS, name) }

// testMount is where the tests pretend the directory is mounted (the host
// mounts a grant at its real path).
const testMount = "/data"
