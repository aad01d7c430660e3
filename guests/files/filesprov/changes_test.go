package filesprov

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

func (h *harness) changes(cursor string, paths ...string) abi.ChangesResult {
	h.t.Helper()
	var r abi.ChangesResult
	h.ok(abi.OpChanges, abi.ChangesRequest{Cursor: cursor, Paths: paths}, &r)
	require.NoError(h.t, r.Validate(space))
	require.NotEmpty(h.t, r.Cursor)
	return r
}

func TestChangesSequence(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "a", "d/b.txt": "b", ".hidden": "h"})
	h := newHarness(t, root, nil)

	base := h.changes("")
	require.False(t, base.ListChanged, "a baseline call without paths reports no change")
	require.Empty(t, base.Updated)

	write(t, root, "a.txt", "a2")
	mod := h.changes(base.Cursor, "/data/a.txt")
	require.Equal(t, []string{"file:///data/a.txt"}, mod.Updated)
	require.False(t, mod.ListChanged, "a modified file leaves the list alone")
	require.Equal(t, base.Cursor, mod.Cursor)

	write(t, root, "d/new.txt", "n")
	created := h.changes(mod.Cursor, "/data/d/new.txt")
	require.Equal(t, []string{"file:///data/d/new.txt"}, created.Updated)
	require.True(t, created.ListChanged)

	require.NoError(t, os.RemoveAll(filepath.Join(root, "d")))
	removed := h.changes(created.Cursor, "/data/d")
	require.Equal(t, []string{"file:///data/d/b.txt", "file:///data/d/new.txt"}, removed.Updated)
	require.True(t, removed.ListChanged)

	ignored := h.changes(removed.Cursor, "/data/.hidden", "/elsewhere/x", "/data/../etc/passwd")
	require.Empty(t, ignored.Updated)
	require.False(t, ignored.ListChanged)
}

// Instances of a pool do not share memory: an instance that did not see the
// previous call must still answer correctly from the cursor alone.
func TestChangesAcrossInstances(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "a"})
	first := newHarness(t, root, nil)
	base := first.changes("")

	write(t, root, "b.txt", "b")
	other := newHarness(t, root, nil) // a fresh instance, no snapshot
	r := other.changes(base.Cursor, "/data/b.txt")
	require.True(t, r.ListChanged)
	require.Equal(t, []string{"file:///data/b.txt"}, r.Updated)

	write(t, root, "a.txt", "a2")
	r2 := first.changes(r.Cursor, "/data/a.txt") // first's snapshot is stale
	require.False(t, r2.ListChanged)
	require.Equal(t, r.Cursor, r2.Cursor)
	require.Equal(t, []string{"file:///data/a.txt"}, r2.Updated)
}

func TestChangesMountRoot(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "a"})
	h := newHarness(t, root, nil)
	base := h.changes("")
	write(t, root, "c.txt", "c")
	r := h.changes(base.Cursor, "/data")
	require.True(t, r.ListChanged)
	require.Equal(t, []string{"file:///data/c.txt"}, r.Updated, "only the file that appeared, not every file")
}

func TestChangesWithoutBaseline(t *testing.T) {
	h := newHarness(t, tree(t, map[string]string{"a.txt": "a"}), nil)
	r := h.changes("", "/data/a.txt")
	require.True(t, r.ListChanged, "without a cursor a change may be a creation")
	require.Equal(t, []string{"file:///data/a.txt"}, r.Updated)
}
