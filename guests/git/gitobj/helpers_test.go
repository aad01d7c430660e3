package gitobj

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/guests/git/internal/gittest"
)

// openDir opens the repository at the host directory dir.
func openDir(t testing.TB, dir string, l Limits) *Repo {
	t.Helper()
	r, err := Open(os.DirFS(dir), filepath.ToSlash(dir), ".", l)
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// sampleRepo makes a repository with the real git: text, binary, empty,
// executable, symlink, nested and non-ASCII files over several commits
// (each editing a large file a little, so that repacks make deltas),
// a lightweight and an annotated tag and a second branch.
func sampleRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	var big strings.Builder
	for i := range 2000 {
		big.WriteString("line " + strconv.Itoa(i) + " of a file that repacks turn into deltas\n")
	}
	bin := make([]byte, 4096)
	for i := range bin {
		bin[i] = byte(i * 7)
	}
	gittest.Write(t, dir, "README.md", []byte("# sample\n"))
	gittest.Write(t, dir, "empty", "")
	gittest.Write(t, dir, "bin/data.bin", bin)
	gittest.Write(t, dir, "a/b/c/deep.txt", []byte("deep\n"))
	gittest.Write(t, dir, "ünï cødé.txt", []byte("unicode name\n"))
	gittest.Write(t, dir, "big.txt", []byte(big.String()))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.Symlink("README.md", filepath.Join(dir, "link")))
	gittest.Git(t, dir, "add", "-A")
	gittest.Git(t, dir, "commit", "-q", "-m", "first")
	gittest.Git(t, dir, "tag", "v1")
	for i := range 30 {
		s := strings.Replace(big.String(), "line "+strconv.Itoa(i*50)+" ", "edited "+strconv.Itoa(i)+" ", 1)
		gittest.Write(t, dir, "big.txt", []byte(s))
		gittest.Write(t, dir, "a/b/c/deep.txt", []byte("deep "+strconv.Itoa(i)+"\n"))
		gittest.Git(t, dir, "commit", "-q", "-am", "edit "+strconv.Itoa(i))
	}
	gittest.Git(t, dir, "tag", "-a", "v2", "-m", "annotated")
	gittest.Git(t, dir, "branch", "side", "v1")
	return dir
}

// looseObject writes a loose object of type typ with content data into
// the repository at dir and returns its id; header overrides the header
// when set (a lie about the size).
func looseObject(t testing.TB, dir, typ string, data []byte, header string) ID {
	t.Helper()
	if header == "" {
		header = gittest.Header(typ, data)
	}
	return ID(gittest.Loose(t, dir, gittest.ObjectID(typ, data), header, data))
}

// emptyRepo makes a .git skeleton without the git binary.
func emptyRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	gittest.Write(t, dir, ".git/HEAD", []byte("ref: refs/heads/main\n"))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git/objects/pack"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git/refs/heads"), 0o755))
	return dir
}

func treeEntry(mode, name string, id ID) []byte {
	return append([]byte(mode+" "+name+"\x00"), id[:]...)
}
