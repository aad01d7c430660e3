package gitprov

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/git/internal/gittest"
)

// TestChanges: every poll is answered by a fresh provider (as any
// instance of the pool may answer), so the cursor alone carries the state.
func TestChanges(t *testing.T) {
	dir := demoRepo(t)
	ctx := hostCtx(t, nil)
	poll := func(cursor string) *abi.ChangesResult {
		t.Helper()
		res, err := newProvider(dir).Changes(ctx, abi.ChangesRequest{Cursor: cursor})
		require.NoError(t, err)
		require.LessOrEqual(t, len(res.Cursor), maxCursor)
		return res
	}
	base := poll("")
	require.Empty(t, base.Updated)
	same := poll(base.Cursor)
	require.Empty(t, same.Updated)
	require.False(t, same.ListChanged)
	require.Equal(t, base.Cursor, same.Cursor)

	// An edit on main: its file and main's summaries, HEAD's too.
	gittest.Write(t, dir, "src/main.go", "package main\n\nfunc main() {}\n")
	gittest.Git(t, dir, "commit", "-q", "-am", "edit")
	edit := poll(same.Cursor)
	require.False(t, edit.ListChanged, "no file added or removed")
	require.Subset(t, edit.Updated, []string{"git://demo/blob/main/src/main.go", "git://demo/blob/HEAD/src/main.go",
		"git://demo/tree/main", "git://demo/log/main", "git://demo/commit/main", "git://demo/refs"})
	require.NotContains(t, edit.Updated, "git://demo/blob/main/README.md")
	require.NotContains(t, edit.Updated, "git://demo/log/v1", "v1 did not move")

	// A file added on main changes the list.
	gittest.Write(t, dir, "NEW.md", "new\n")
	gittest.Git(t, dir, "add", "NEW.md")
	gittest.Git(t, dir, "commit", "-q", "-m", "add")
	add := poll(edit.Cursor)
	require.True(t, add.ListChanged)
	require.Contains(t, add.Updated, "git://demo/blob/main/NEW.md")

	// A file added on another branch does not.
	gittest.Git(t, dir, "update-ref", "refs/heads/feature/x", "main")
	side := poll(add.Cursor)
	require.False(t, side.ListChanged)
	require.Contains(t, side.Updated, "git://demo/blob/feature%2Fx/NEW.md")

	// HEAD naming another branch changes the list's URIs.
	gittest.Git(t, dir, "checkout", "-q", "-b", "other")
	moved := poll(side.Cursor)
	require.True(t, moved.ListChanged)

	// A packed ref that moves is seen too.
	gittest.Git(t, dir, "pack-refs", "--all")
	packed := poll(moved.Cursor)
	gittest.Git(t, dir, "tag", "-f", "v1", "main")
	gittest.Git(t, dir, "pack-refs", "--all")
	tag := poll(packed.Cursor)
	require.Contains(t, tag.Updated, "git://demo/blob/v1/NEW.md")

	_, err := newProvider(dir).Changes(ctx, abi.ChangesRequest{Cursor: "!!"})
	require.Error(t, err)
}

// TestEmptyRepository: a repository without commits lists its refs only,
// and its first commit is a change: the list gains the files.
func TestEmptyRepository(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "empty")
	require.NoError(t, os.Mkdir(dir, 0o755))
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	ctx := hostCtx(t, nil)
	page, err := newProvider(dir).List(ctx, "")
	require.NoError(t, err)
	require.Len(t, page.Resources, 1)
	require.Equal(t, "git://empty/refs", page.Resources[0].URI)
	base, err := newProvider(dir).Changes(ctx, abi.ChangesRequest{})
	require.NoError(t, err)

	gittest.Write(t, dir, "first.txt", "1\n")
	gittest.Git(t, dir, "add", "-A")
	gittest.Git(t, dir, "commit", "-q", "-m", "first")
	ch, err := newProvider(dir).Changes(ctx, abi.ChangesRequest{Cursor: base.Cursor})
	require.NoError(t, err)
	require.True(t, ch.ListChanged)
	require.Contains(t, ch.Updated, "git://empty/blob/HEAD/first.txt")
	require.Contains(t, ch.Updated, "git://empty/refs")
}

// TestDeletedBranch: deleting a branch announces the refs.
func TestDeletedBranch(t *testing.T) {
	dir := demoRepo(t)
	ctx := hostCtx(t, nil)
	base, err := newProvider(dir).Changes(ctx, abi.ChangesRequest{})
	require.NoError(t, err)
	gittest.Git(t, dir, "branch", "-D", "feature/x")
	ch, err := newProvider(dir).Changes(ctx, abi.ChangesRequest{Cursor: base.Cursor})
	require.NoError(t, err)
	require.Equal(t, []string{"git://demo/refs"}, ch.Updated)
}
