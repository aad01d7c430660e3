package main_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// TestFilesWasmSymlinksInside: a symbolic link that stays inside the
// granted directory (which the host's mount follows) is not followed by the
// files provider either: reading through one, as the last component or as
// a directory on the way, is not_found, so a visible name cannot serve a
// hidden file, and completion and changes do not see through one.
func TestFilesWasmSymlinksInside(t *testing.T) { eachBuild(t, testFilesWasmSymlinksInside) }

func testFilesWasmSymlinksInside(t *testing.T, wasm string) {
	root := t.TempDir()
	for rel, body := range map[string]string{"a.txt": "a", ".env": "SECRET=1", ".git/config": "[core]", "sub/b.txt": "b"} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	for link, target := range map[string]string{
		"config": ".env", "link.txt": "a.txt", "linkdir": "sub", "gitdir": ".git", "sub/up": "..",
	} {
		require.NoError(t, os.Symlink(target, filepath.Join(root, filepath.FromSlash(link))))
	}
	p, _ := loadFiles(t, wasm, root)
	ctx := t.Context()
	require.Equal(t, []string{"a.txt", "sub/b.txt"}, listNames(t, p))
	for _, uri := range []string{
		"file:///data/config", "file:///data/link.txt", "file:///data/linkdir/b.txt", "file:///data/gitdir/config",
		"file:///data/sub/up/a.txt", "file:///data/sub/up/sub/b.txt",
	} {
		res, err := p.Read(ctx, uri)
		require.ErrorIs(t, err, abi.ErrNotFound, "%s read: %+v", uri, res)
	}
	for _, partial := range []string{"linkdir/", "gitdir/", "sub/up/"} {
		cr, err := p.Complete(ctx, abi.CompleteRequest{Template: "file:///data/{+path}", Argument: abi.CompleteArgument{Name: "path", Value: partial}})
		require.NoError(t, err)
		require.Empty(t, cr.Values, partial)
	}
	base, err := p.Changes(ctx, abi.ChangesRequest{})
	require.NoError(t, err)
	ch, err := p.Changes(ctx, abi.ChangesRequest{Cursor: base.Cursor, Paths: []string{"/data/config", "/data/link.txt", "/data/linkdir"}})
	require.NoError(t, err)
	require.Empty(t, ch.Updated)
	require.Equal(t, base.Cursor, ch.Cursor)
	res, err := p.Read(ctx, "file:///data/sub/b.txt")
	require.NoError(t, err)
	require.Equal(t, "b", *res.Contents[0].Text)
}
