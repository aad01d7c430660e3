package gitobj

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/guests/git/internal/gittest"
)

// checkAgainstGit reads every file `git ls-tree -r HEAD` names and
// requires the bytes `git cat-file blob` prints; it also holds Walk to
// ls-tree's order and modes, Refs to show-ref and Resolve to rev-parse.
func checkAgainstGit(t *testing.T, gitDir string, r *Repo) {
	t.Helper()
	head, err := r.Resolve("HEAD")
	require.NoError(t, err)
	require.Equal(t, strings.TrimSpace(gittest.Git(t, gitDir, "rev-parse", "HEAD")), head.String())
	c, err := r.Commit(head)
	require.NoError(t, err)
	files, err := r.Walk(c.Tree, "")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimRight(gittest.Git(t, gitDir, "ls-tree", "-r", "-z", "HEAD"), "\x00"), "\x00")
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
		require.Equal(t, gittest.Git(t, gitDir, "cat-file", "blob", f[2]), string(obj.Data), name)
		blobs++
	}
	require.NotZero(t, blobs)
	refs, err := r.Refs()
	require.NoError(t, err)
	var got []string
	for _, ref := range refs {
		got = append(got, ref.ID.String()+" "+ref.Name)
	}
	require.Equal(t, strings.TrimSpace(gittest.Git(t, gitDir, "show-ref")), strings.Join(got, "\n"))
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
		gittest.Git(t, dir, "gc", "-q")
		_, err := os.Stat(filepath.Join(dir, ".git/packed-refs"))
		require.NoError(t, err, "gc packs the refs")
		checkAgainstGit(t, dir, openDir(t, dir, Limits{}))
	})
	t.Run("repack-depth-50", func(t *testing.T) {
		gittest.Git(t, dir, "repack", "-a", "-d", "-f", "--depth=50", "--window=250")
		requireDeltas(t, dir)
		require.NotZero(t, entryTypes(t, openDir(t, dir, Limits{}))[typeOfs], "the pack holds OFS_DELTA entries")
		checkAgainstGit(t, dir, openDir(t, dir, Limits{}))
		// Every object of the history, against one `git cat-file --batch`.
		r := openDir(t, dir, Limits{})
		var ids []string
		for _, line := range strings.Split(strings.TrimSpace(gittest.Git(t, dir, "rev-list", "--all", "--objects")), "\n") {
			id, _, _ := strings.Cut(line, " ")
			ids = append(ids, id)
		}
		batch := catFileBatch(t, dir, ids)
		require.Len(t, batch, len(ids))
		for i, id := range ids {
			oid, ok := ParseID(id)
			require.True(t, ok)
			obj, err := r.Read(oid)
			require.NoError(t, err)
			require.Equal(t, batch[i], string(obj.Data), id)
		}
	})
	t.Run("ref-deltas", func(t *testing.T) {
		// A thin-pack style pack whose deltas name their bases by id.
		gittest.Git(t, dir, "-c", "repack.useDeltaBaseOffset=false", "repack", "-a", "-d", "-f", "--depth=50")
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
	out := gittest.Git(t, dir, "verify-pack", "-v", idx[0])
	require.Contains(t, out, "chain length = ", "the repack made deltas")
}

// TestDifferentialOwnHistory reads this repository's own history: its
// common git directory (a worktree's .git is a file pointing elsewhere;
// in CI the checkout is a normal clone).
func TestDifferentialOwnHistory(t *testing.T) {
	common := strings.TrimSpace(gittest.Git(t, ".", "rev-parse", "--path-format=absolute", "--git-common-dir"))
	if shallow := strings.TrimSpace(gittest.Git(t, ".", "rev-parse", "--is-shallow-repository")); shallow == "true" {
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
	for _, id := range strings.Fields(gittest.Git(t, common, "rev-list", "HEAD")) {
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

// catFileBatch returns the contents of ids as one `git cat-file --batch`
// prints them.
func catFileBatch(t *testing.T, dir string, ids []string) []string {
	t.Helper()
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
	raw, err := cmd.Output()
	require.NoError(t, err)
	var out []string
	br := bufio.NewReader(bytes.NewReader(raw))
	for {
		hdr, err := br.ReadString('\n')
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		f := strings.Fields(hdr)
		require.Len(t, f, 3, hdr)
		n, err := strconv.Atoi(f[2])
		require.NoError(t, err)
		body := make([]byte, n+1) // the content and a newline
		_, err = io.ReadFull(br, body)
		require.NoError(t, err)
		out = append(out, string(body[:n]))
	}
}
