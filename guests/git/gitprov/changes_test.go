package gitprov

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
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
	write(t, dir, "src/main.go", "package main\n\nfunc main() {}\n")
	git(t, dir, "commit", "-q", "-am", "edit")
	edit := poll(same.Cursor)
	require.False(t, edit.ListChanged, "no file added or removed")
	require.Subset(t, edit.Updated, []string{"git://demo/blob/main/src/main.go", "git://demo/blob/HEAD/src/main.go",
		"git://demo/tree/main", "git://demo/log/main", "git://demo/commit/main", "git://demo/refs"})
	require.NotContains(t, edit.Updated, "git://demo/blob/main/README.md")
	require.NotContains(t, edit.Updated, "git://demo/log/v1", "v1 did not move")

	// A file added on main changes the list.
	write(t, dir, "NEW.md", "new\n")
	git(t, dir, "add", "NEW.md")
	git(t, dir, "commit", "-q", "-m", "add")
	add := poll(edit.Cursor)
	require.True(t, add.ListChanged)
	require.Contains(t, add.Updated, "git://demo/blob/main/NEW.md")

	// A file added on another branch does not.
	git(t, dir, "update-ref", "refs/heads/feature/x", "main")
	side := poll(add.Cursor)
	require.False(t, side.ListChanged)
	require.Contains(t, side.Updated, "git://demo/blob/feature%2Fx/NEW.md")

	// HEAD naming another branch changes the list's URIs.
	git(t, dir, "checkout", "-q", "-b", "other")
	moved := poll(side.Cursor)
	require.True(t, moved.ListChanged)

	// A packed ref that moves is seen too.
	git(t, dir, "pack-refs", "--all")
	packed := poll(moved.Cursor)
	git(t, dir, "tag", "-f", "v1", "main")
	git(t, dir, "pack-refs", "--all")
	tag := poll(packed.Cursor)
	require.Contains(t, tag.Updated, "git://demo/blob/v1/NEW.md")

	_, err := newProvider(dir).Changes(ctx, abi.ChangesRequest{Cursor: "!!"})
	require.Error(t, err)
}
