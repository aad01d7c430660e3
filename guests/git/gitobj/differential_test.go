package gitobj

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// checkAgainstGit reads every file `git ls-tree -r HEAD` names and
// requires the bytes `git cat-file blob` prints; it also holds Walk to
// ls-tree's order and modes, Refs to show-ref and Resolve to rev-parse.
func checkAgainstGit(t *testing.T, gitDir string, r *Repo) {
	t.Helper()
	head, err := r.Resolve("HEAD")
	require.NoError(t, err)
	require.Equal(t, strings.TrimSpace(git(t, gitDir, "rev-parse", "HEAD")), head.String())
	c, err := r.Commit(head)
	require.NoError(t, err)
	files, err := r.Walk(c.Tree, "")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimRight(git(t, gitDir, "ls-tree", "-r", "-z", "HEAD"), "\x00"), "\x00")
	require.Len(t, files, len(lines))
	blobs := 0
	for i, line := range lines {
		meta, name, _ := strings.Cut(line, "\t")
		f := meta3(meta)
		require.Equal(t, name, files[i].Path)
		require.Equal(t, f[2], files[i].ID.String(), name)
		if f[1] != "blob" {
			continue
		}
		obj, err := r.Read(files[i].ID)
		require.NoError(t, err, name)
		require.Equal(t, TypeBlob, obj.Type)
		require.Equal(t, git(t, gitDir, "cat-file", "blob", f[2]), string(obj.Data), name)
		blobs++
	}
	require.NotZero(t, blobs)
	refs, err := r.Refs()
	require.NoError(t, err)
	var got []string
	for _, ref := range refs {
		got = append(got, ref.ID.String()+" "+ref.Name)
	}
	require.Equal(t, strings.TrimSpace(git(t, gitDir, "show-ref")), strings.Join(got, "\n"))
}

func meta3(s string) [3]string {
	f := strings.Fields(s)
	return [3]string{f[0], f[1], f[2]}
}

// TestDifferentialLoosePackedDeltas: the same repository read loose,
// after git gc (packed, packed-refs) and after an aggressive repack with
// long delta chains, byte for byte as git reads it.
func TestDifferentialLoosePackedDeltas(t *testing.T) {
	dir := sampleRepo(t)
	t.Run("loose", func(t *testing.T) {
		matches, _ := filepath.Glob(filepath.Join(dir, ".git/objects/pack/*.pack"))
		require.Empty(t, matches)
		checkAgainstGit(t, dir, openDir(t, dir, Limits{}))
	})
	t.Run("gc", func(t *testing.T) {
		git(t, dir, "gc", "-q")
		_, err := os.Stat(filepath.Join(dir, ".git/packed-refs"))
		require.NoError(t, err, "gc packs the refs")
		checkAgainstGit(t, dir, openDir(t, dir, Limits{}))
	})
	t.Run("repack-depth-50", func(t *testing.T) {
		git(t, dir, "repack", "-a", "-d", "-f", "--depth=50", "--window=250")
		requireDeltas(t, dir)
		require.NotZero(t, entryTypes(t, openDir(t, dir, Limits{}))[typeOfs], "the pack holds OFS_DELTA entries")
		checkAgainstGit(t, dir, openDir(t, dir, Limits{}))
		// Every commit of the history, with its tree and every blob.
		r := openDir(t, dir, Limits{})
		for _, id := range strings.Fields(git(t, dir, "rev-list", "--all", "--objects")) {
			oid, ok := ParseID(id)
			if !ok {
				continue // a path printed beside its object
			}
			obj, err := r.Read(oid)
			require.NoError(t, err)
			require.Equal(t, git(t, dir, "cat-file", obj.Type.String(), id), string(obj.Data))
		}
	})
	t.Run("ref-deltas", func(t *testing.T) {
		// A thin-pack style pack whose deltas name their bases by id.
		git(t, dir, "-c", "repack.useDeltaBaseOffset=false", "repack", "-a", "-d", "-f", "--depth=50")
		requireDeltas(t, dir)
		require.NotZero(t, entryTypes(t, openDir(t, dir, Limits{}))[typeRef], "the pack holds REF_DELTA entries")
		checkAgainstGit(t, dir, openDir(t, dir, Limits{}))
	})
}

// requireDeltas checks that the pack really holds delta chains.
func requireDeltas(t *testing.T, dir string) {
	t.Helper()
	idx, _ := filepath.Glob(filepath.Join(dir, ".git/objects/pack/*.idx"))
	require.NotEmpty(t, idx)
	out := git(t, dir, "verify-pack", "-v", idx[0])
	require.Contains(t, out, "chain length = ", "the repack made deltas")
}

// TestDifferentialOwnHistory reads this repository's own history: its
// common git directory (a worktree's .git is a file pointing elsewhere;
// in CI the checkout is a normal clone).
func TestDifferentialOwnHistory(t *testing.T) {
	common := strings.TrimSpace(git(t, ".", "rev-parse", "--path-format=absolute", "--git-common-dir"))
	if shallow := strings.TrimSpace(git(t, ".", "rev-parse", "--is-shallow-repository")); shallow == "true" {
		t.Log("a shallow checkout: the walk below reports where history stops")
	}
	r, err := Open(os.DirFS(common), common, ".", Limits{})
	require.NoError(t, err)
	defer r.Close()
	checkAgainstGit(t, common, r)
	head, err := r.Resolve("HEAD")
	require.NoError(t, err)
	log, err := r.Log(head, 200)
	require.NoError(t, err)
	// Commits with equal times may be ordered differently at the 200th,
	// so the check is: HEAD first, 200 distinct commits (or all there
	// are), each one git walks from HEAD.
	all := map[string]bool{}
	for _, id := range strings.Fields(git(t, common, "rev-list", "HEAD")) {
		all[id] = true
	}
	var got []string
	for _, e := range log {
		if e.Commit != nil {
			require.True(t, all[e.Commit.ID.String()], e.Commit.ID)
			got = append(got, e.Commit.ID.String())
		}
	}
	require.Equal(t, head.String(), got[0])
	require.Len(t, got, min(200, len(all)))
}

// entryTypes counts the raw entry types of every pack of r.
func entryTypes(t *testing.T, r *Repo) map[Type]int {
	t.Helper()
	require.NoError(t, r.scanPacks(true))
	counts := map[Type]int{}
	for _, p := range r.packs {
		for i := 0; i < len(p.names)/20; i++ {
			var id ID
			copy(id[:], p.names[i*20:])
			off, ok := p.find(id)
			require.True(t, ok)
			typ, _, err := entryHeader(bufio.NewReader(io.NewSectionReader(p.file, off, 64)))
			require.NoError(t, err)
			counts[typ]++
		}
	}
	return counts
}
