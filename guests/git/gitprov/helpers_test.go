package gitprov

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/git/internal/gittest"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// demoRepo is a repository named "demo": README.md and src/main.go at v1,
// README.md edited at main, a branch with a slash, an LFS pointer, a
// symlink and a binary file.
func demoRepo(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "demo")
	require.NoError(t, os.Mkdir(dir, 0o755))
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.Write(t, dir, "README.md", "hello\n")
	gittest.Write(t, dir, "src/main.go", "package main\n")
	gittest.Write(t, dir, "assets/model.bin", "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")
	gittest.Write(t, dir, "img.png", "\x89PNG\r\n\x1a\n\x00\x01")
	require.NoError(t, os.Symlink("README.md", filepath.Join(dir, "link")))
	gittest.Git(t, dir, "add", "-A")
	gittest.Git(t, dir, "commit", "-q", "-m", "first")
	gittest.Git(t, dir, "tag", "v1")
	gittest.Write(t, dir, "README.md", "hello\nworld\n")
	gittest.Git(t, dir, "commit", "-q", "-am", "second\n\nwith a body")
	gittest.Git(t, dir, "branch", "feature/x", "v1")
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
