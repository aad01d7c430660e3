package gitobj

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// git runs the real git binary in dir and returns its stdout.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("git is not installed: apt-get install git")
		}
		t.Skip("git is not installed")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=gc.auto", "GIT_CONFIG_VALUE_0=0", "HOME="+dir, "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "git %v: %s", args, stderr.String())
	return string(out)
}

// openDir opens the repository at the host directory dir.
func openDir(t testing.TB, dir string, l Limits) *Repo {
	t.Helper()
	r, err := Open(os.DirFS(dir), filepath.ToSlash(dir), ".", l)
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// writeFile writes body at dir/rel, making directories.
func writeFile(t testing.TB, dir, rel string, body []byte) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, body, 0o644))
}

// sampleRepo makes a repository with the real git: text, binary, empty,
// executable, symlink, nested and non-ASCII files over several commits
// (each editing a large file a little, so that repacks make deltas),
// a lightweight and an annotated tag and a second branch.
func sampleRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	var big strings.Builder
	for i := range 2000 {
		big.WriteString("line " + strconv.Itoa(i) + " of a file that repacks turn into deltas\n")
	}
	bin := make([]byte, 4096)
	for i := range bin {
		bin[i] = byte(i * 7)
	}
	writeFile(t, dir, "README.md", []byte("# sample\n"))
	writeFile(t, dir, "empty", nil)
	writeFile(t, dir, "bin/data.bin", bin)
	writeFile(t, dir, "a/b/c/deep.txt", []byte("deep\n"))
	writeFile(t, dir, "ünï cødé.txt", []byte("unicode name\n"))
	writeFile(t, dir, "big.txt", []byte(big.String()))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.Symlink("README.md", filepath.Join(dir, "link")))
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "first")
	git(t, dir, "tag", "v1")
	for i := range 30 {
		s := strings.Replace(big.String(), "line "+strconv.Itoa(i*50)+" ", "edited "+strconv.Itoa(i)+" ", 1)
		writeFile(t, dir, "big.txt", []byte(s))
		writeFile(t, dir, "a/b/c/deep.txt", []byte("deep "+strconv.Itoa(i)+"\n"))
		git(t, dir, "commit", "-q", "-am", "edit "+strconv.Itoa(i))
	}
	git(t, dir, "tag", "-a", "v2", "-m", "annotated")
	git(t, dir, "branch", "side", "v1")
	return dir
}

// looseObject writes a loose object of type typ with content data into
// the repository at dir and returns its id; header overrides the header
// when set (a lie about the size).
func looseObject(t testing.TB, dir, typ string, data []byte, header string) ID {
	t.Helper()
	hdr := typ + " " + strconv.Itoa(len(data)) + "\x00"
	id := ID(sha1.Sum(append([]byte(hdr), data...)))
	if header != "" {
		hdr = header
	}
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	_, _ = zw.Write([]byte(hdr))
	_, _ = zw.Write(data)
	require.NoError(t, zw.Close())
	h := id.String()
	writeFile(t, dir, ".git/objects/"+h[:2]+"/"+h[2:], buf.Bytes())
	return id
}

// emptyRepo makes a .git skeleton without the git binary.
func emptyRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, dir, ".git/HEAD", []byte("ref: refs/heads/main\n"))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git/objects/pack"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git/refs/heads"), 0o755))
	return dir
}

func treeEntry(mode, name string, id ID) []byte {
	return append([]byte(mode+" "+name+"\x00"), id[:]...)
}
