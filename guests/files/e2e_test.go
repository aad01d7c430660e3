package main_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// TestFilesWasm loads the real files.wasm into the real runtime with a
// granted directory and drives every operation end to end through WASI.
func TestFilesWasm(t *testing.T) { eachBuild(t, testFilesWasm) }

func testFilesWasm(t *testing.T, wasm string) {
	ctx := t.Context()
	root, outside := t.TempDir(), t.TempDir()
	for rel, body := range map[string]string{
		"README.md": "# hello\n", "src/main.go": "package main\n", "img/dot.png": "\x89PNG\r\n\x1a\n\x00",
		".env": "SECRET=1", "big.txt": "0123456789abcdef",
	} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "escape.txt")))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "escapedir")))

	rt, err := runtime.New(ctx, runtime.NewConfig().WithCacheDir(testCacheDir()))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	cfg := testkit.Limits(runtime.NewProviderConfig()).WithPoolSize(2).WithCompileTimeout(10 * time.Minute).WithGrants(runtime.Grants{
		Dirs:   []runtime.DirGrant{{HostPath: root, GuestPath: "/data"}},
		Config: map[string]string{"max_file_bytes": "14"},
	})
	p, err := rt.LoadFile(ctx, wasm, cfg)
	require.NoError(t, err)
	require.Equal(t, abi.Operations, p.Describe().Operations)

	t.Run("list", func(t *testing.T) {
		page, err := p.List(ctx, "")
		require.NoError(t, err)
		var names []string
		for _, r := range page.Resources {
			names = append(names, r.Name)
			require.NotEmpty(t, r.Annotations.LastModified, "%s: mtime comes through WASI", r.Name)
		}
		require.Equal(t, []string{"README.md", "big.txt", "img/dot.png", "src/main.go"}, names)
		require.Empty(t, page.NextCursor)
	})
	t.Run("read", func(t *testing.T) {
		res, err := p.Read(ctx, "file:///data/src/main.go")
		require.NoError(t, err)
		require.Equal(t, "package main\n", *res.Contents[0].Text)
		res, err = p.Read(ctx, "file:///data/img/dot.png")
		require.NoError(t, err)
		require.Equal(t, "image/png", res.Contents[0].MIMEType)
		require.Equal(t, "iVBORw0KGgoA", *res.Contents[0].Blob)
	})
	t.Run("refusals", func(t *testing.T) {
		for uri, kind := range map[string]error{
			"file:///data/escape.txt":       abi.ErrNotFound,
			"file:///data/escapedir/secret": abi.ErrNotFound,
			"file:///data/.env":             abi.ErrNotFound,
			"file:///data/missing":          abi.ErrNotFound,
			"file:///data/src":              abi.ErrNotFound,
			"file:///data/src/%2E%2E/.env":  abi.ErrInvalidParams,
			"file:///data/big.txt":          abi.ErrInvalidParams, // over max_file_bytes=14
			"file:///data/src%2Fmain.go":    abi.ErrInvalidParams,
		} {
			_, err := p.Read(ctx, uri)
			require.ErrorIs(t, err, kind, uri)
		}
	})
	t.Run("complete", func(t *testing.T) {
		cr, err := p.Complete(ctx, abi.CompleteRequest{Template: "file:///data/{+path}", Argument: abi.CompleteArgument{Name: "path", Value: "s"}})
		require.NoError(t, err)
		require.Equal(t, []string{"src/"}, cr.Values)
	})
	t.Run("changes", func(t *testing.T) {
		base, err := p.Changes(ctx, abi.ChangesRequest{})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(root, "src", "new.go"), []byte("package main\n"), 0o644))
		ch, err := p.Changes(ctx, abi.ChangesRequest{Cursor: base.Cursor, Paths: []string{"/data/src/new.go"}})
		require.NoError(t, err)
		require.True(t, ch.ListChanged)
		require.Equal(t, []string{"file:///data/src/new.go"}, ch.Updated)
	})
	require.Zero(t, p.Stats().Faults)
}

// TestFilesWasmOSPaths: the guest paths the host mounts grants at on each
// OS the binary builds for (runtime's realGuestPath) become RFC 8089 URIs:
// a Windows drive path as file:///C:/..., a macOS path with spaces and a
// unicode Linux path escaped per segment; each URI reads back, and each
// root has its template. The mounts are given as explicit guest paths,
// which is how a Linux test host can present the other OSes' forms.
func TestFilesWasmOSPaths(t *testing.T) { eachBuild(t, testFilesWasmOSPaths) }

func testFilesWasmOSPaths(t *testing.T, wasm string) {
	ctx := t.Context()
	mounts := map[string]string{
		"/C:/Users/me/notes": "file:///C:/Users/me/notes",
		"/Users/me/Library/Mobile Documents/com~apple~CloudDocs": "file:///Users/me/Library/Mobile%20Documents/com~apple~CloudDocs",
		"/home/me/ünï cødé":                                      "file:///home/me/%C3%BCn%C3%AF%20c%C3%B8d%C3%A9",
	}
	var g runtime.Grants
	for guest := range mounts {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "to do.md"), []byte(guest), 0o644))
		g.Dirs = append(g.Dirs, runtime.DirGrant{HostPath: dir, GuestPath: guest})
	}
	rt, err := runtime.New(ctx, runtime.NewConfig().WithCacheDir(testCacheDir()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(ctx) })
	p, err := rt.LoadFile(ctx, wasm, testkit.Limits(runtime.NewProviderConfig()).WithCompileTimeout(10*time.Minute).WithGrants(g))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close(ctx) })

	page, err := p.List(ctx, "")
	require.NoError(t, err)
	got := map[string]string{}
	for _, r := range page.Resources {
		got[r.URI] = r.Name
	}
	want := map[string]string{}
	for guest, base := range mounts {
		want[base+"/to%20do.md"] = "to do.md"
		res, err := p.Read(ctx, base+"/to%20do.md")
		require.NoError(t, err, base)
		require.Equal(t, guest, *res.Contents[0].Text)
		require.Equal(t, base+"/to%20do.md", res.Contents[0].URI)
	}
	require.Equal(t, want, got)
	tpls, err := p.Templates(ctx, "")
	require.NoError(t, err)
	var tmpl []string
	for _, tp := range tpls.ResourceTemplates {
		tmpl = append(tmpl, tp.URITemplate)
	}
	require.ElementsMatch(t, []string{mounts["/C:/Users/me/notes"] + "/{+path}",
		mounts["/Users/me/Library/Mobile Documents/com~apple~CloudDocs"] + "/{+path}", mounts["/home/me/ünï cødé"] + "/{+path}"}, tmpl)
}
