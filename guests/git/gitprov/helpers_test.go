package gitprov

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// git runs the real git binary in dir.
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
		"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "git %v: %s", args, stderr.String())
	return string(out)
}

func write(t testing.TB, dir, rel, body string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
}

// demoRepo is a repository named "demo": README.md and src/main.go at v1,
// README.md edited at main, a branch with a slash, an LFS pointer, a
// symlink and a binary file.
func demoRepo(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "demo")
	require.NoError(t, os.Mkdir(dir, 0o755))
	git(t, dir, "init", "-q", "-b", "main")
	write(t, dir, "README.md", "hello\n")
	write(t, dir, "src/main.go", "package main\n")
	write(t, dir, "assets/model.bin", "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")
	write(t, dir, "img.png", "\x89PNG\r\n\x1a\n\x00\x01")
	require.NoError(t, os.Symlink("README.md", filepath.Join(dir, "link")))
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "first")
	git(t, dir, "tag", "v1")
	write(t, dir, "README.md", "hello\nworld\n")
	git(t, dir, "commit", "-q", "-am", "second\n\nwith a body")
	git(t, dir, "branch", "feature/x", "v1")
	return dir
}

// newProvider serves dir natively, with config values.
func newProvider(dir string) *Provider {
	return New(Root{Path: filepath.ToSlash(dir), FS: os.DirFS(dir)})
}

func hostCtx(t testing.TB, values map[string]string) context.Context {
	return mcpw.WithHost(t.Context(), &mcpw.MapHost{Values: values})
}

func readText(t *testing.T, ctx context.Context, p *Provider, uri string) abi.Content {
	t.Helper()
	res, err := p.Read(ctx, uri)
	require.NoError(t, err, uri)
	require.Len(t, res.Contents, 1)
	require.Equal(t, uri, res.Contents[0].URI)
	return res.Contents[0]
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
