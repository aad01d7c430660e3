package runtime

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

func TestCacheDir_CreatedPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache", "nested")
	rt := newTestRuntime(t, NewConfig().WithCacheDir(dir))
	fi, err := os.Stat(dir)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
	p := load(t, rt, minimalWasm(t), testkit.Limits(NewProviderConfig()))
	_, err = p.Read(context.Background(), "min:a")
	require.NoError(t, err)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.NotEmpty(t, entries, "compiled code must be cached on disk")
}

func TestCacheDir_RefusesShared(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shared")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.Chmod(dir, 0o755))
	_, err := New(context.Background(), NewConfig().WithCacheDir(dir))
	require.ErrorIs(t, err, ErrConfig)
	require.Contains(t, err.Error(), "chmod 700")
}

func TestCacheDir_RefusesSymlinkAndFile(t *testing.T) {
	base := t.TempDir()
	target := filepath.Join(base, "target")
	require.NoError(t, os.Mkdir(target, 0o700))
	link := filepath.Join(base, "link")
	require.NoError(t, os.Symlink(target, link))
	_, err := New(context.Background(), NewConfig().WithCacheDir(link))
	require.ErrorIs(t, err, ErrConfig)
	file := filepath.Join(base, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, err = New(context.Background(), NewConfig().WithCacheDir(file))
	require.ErrorIs(t, err, ErrConfig)
}
