package gitobj

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/guests/git/internal/gittest"
)

// TestUnifiedDiffApplies: for every commit of a history of random edits
// (lines inserted, deleted, changed; files added and removed; a file
// without a final newline), the diff against its parent, given to
// `git apply` on a checkout of the parent, makes exactly the commit.
func TestUnifiedDiffApplies(t *testing.T) {
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	rng := rand.New(rand.NewPCG(1, 2))
	lines := make([]string, 200)
	for i := range lines {
		lines[i] = "line " + strconv.Itoa(i)
	}
	for c := range 25 {
		for range 1 + rng.IntN(6) {
			i := rng.IntN(len(lines))
			switch rng.IntN(3) {
			case 0:
				lines = append(lines[:i], append([]string{"new " + strconv.Itoa(rng.IntN(1000))}, lines[i:]...)...)
			case 1:
				lines = append(lines[:i], lines[i+1:]...)
			default:
				lines[i] = "changed " + strconv.Itoa(rng.IntN(1000))
			}
		}
		gittest.Write(t, dir, "f.txt", []byte(strings.Join(lines, "\n")+"\n"))
		gittest.Write(t, dir, "nonl.txt", []byte("a\nb"+strconv.Itoa(c%3)))
		if c%4 == 1 {
			gittest.Write(t, dir, "sub/added"+strconv.Itoa(c)+".txt", []byte("x\ny\n"))
		}
		if c%4 == 3 {
			require.NoError(t, os.Remove(filepath.Join(dir, "sub", "added"+strconv.Itoa(c-2)+".txt")))
		}
		gittest.Git(t, dir, "add", "-A")
		gittest.Git(t, dir, "commit", "-q", "-m", "c"+strconv.Itoa(c))
	}
	r := openDir(t, dir, Limits{})
	head, err := r.Resolve("HEAD")
	require.NoError(t, err)
	log, err := r.Log(head, 100)
	require.NoError(t, err)
	require.Len(t, log, 25)
	work := t.TempDir()
	gittest.Git(t, work, "clone", "-q", dir, "w")
	w := filepath.Join(work, "w")
	for _, e := range log[:len(log)-1] {
		c := e.Commit
		parent, err := r.Commit(c.Parents[0])
		require.NoError(t, err)
		changes, err := r.DiffTrees(parent.Tree, c.Tree)
		require.NoError(t, err)
		var paths []string
		for _, ch := range changes {
			paths = append(paths, ch.Path)
		}
		require.Equal(t, strings.Fields(gittest.Git(t, dir, "diff-tree", "-r", "--name-only", "--no-renames", parent.ID.String(), c.ID.String())), paths)
		patch := r.UnifiedDiff(changes, 1<<20)
		gittest.Git(t, w, "checkout", "-q", "-f", parent.ID.String())
		gittest.Write(t, work, "p.diff", []byte(patch))
		gittest.Git(t, w, "apply", filepath.Join(work, "p.diff"))
		gittest.Git(t, w, "add", "-A")
		require.Empty(t, gittest.Git(t, w, "diff", "--cached", "--stat", c.ID.String()), "the diff of %s applies to its parent and makes it:\n%s", c.ID, patch)
	}
}

// TestMyersBounds: a pair of files whose every line differs gives up past
// the edit cap, and an empty side needs no search.
func TestMyersBounds(t *testing.T) {
	a, b := make([]string, 5000), make([]string, 5000)
	for i := range a {
		a[i], b[i] = "a"+strconv.Itoa(i)+"\n", "b"+strconv.Itoa(i)+"\n"
	}
	_, ok := myers(a, b, maxDiffEdits)
	require.False(t, ok)
	ops, ok := myers(nil, b, maxDiffEdits)
	require.True(t, ok)
	require.Len(t, ops, len(b))
}

// TestUnifiedDiffBounded: a root commit of many files stops at the byte
// cap, saying how many files it left out.
func TestUnifiedDiffBounded(t *testing.T) {
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	for i := range 300 {
		gittest.Write(t, dir, "f"+strconv.Itoa(i), []byte(strings.Repeat("text\n", 20)))
	}
	gittest.Git(t, dir, "add", "-A")
	gittest.Git(t, dir, "commit", "-q", "-m", "root")
	r := openDir(t, dir, Limits{})
	head, err := r.Resolve("HEAD")
	require.NoError(t, err)
	c, err := r.Commit(head)
	require.NoError(t, err)
	changes, err := r.DiffTrees(ID{}, c.Tree)
	require.NoError(t, err)
	require.Len(t, changes, 300)
	out := r.UnifiedDiff(changes, 4096)
	require.Less(t, len(out), 4096+2048)
	require.Contains(t, out, "more files changed]")
}
