package compile

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/runtime/internal/errs"
)

// TestBakedEntry: a manifest names files one level down in wazero's or
// the runtime's directories, never a temporary file or a way out.
func TestBakedEntry(t *testing.T) {
	for rel, want := range map[string]bool{
		"wazero-v1.9-amd64-linux/abc":  true,
		"mcp-wasm-rewrite-v1/abc":      true,
		"mcp-wasm-compiled-v1/abc":     true,
		"wazero-x/abc.tmp123":          false,
		"other/abc":                    false,
		"wazero-x/..":                  false,
		"wazero-x/.":                   false,
		"wazero-x/a/b":                 false,
		`wazero-x/a\b`:                 false,
		"wazero-x/":                    false,
		"mcp-wasm-baked-v1":            false,
		"../wazero-x/abc":              false,
		"mcp-wasm-rewrite-v1/../../up": false,
	} {
		require.Equal(t, want, bakedEntry(rel), rel)
	}
}

// TestSealOverlay: the overlay of a sealed directory links exactly the
// entries whose content still matches the manifest; a changed entry, one
// replaced by a symlink, and files the manifest never named are left out.
func TestSealOverlay(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	}
	write("wazero-x/code", "native code")
	write("mcp-wasm-rewrite-v1/kept", "a rewrite")
	write("mcp-wasm-rewrite-v1/changed", "before")
	write("mcp-wasm-compiled-v1/swapped", "")
	write("wazero-x/half.tmp1", "partial")
	write("stray/file", "not a cache entry")
	require.NoError(t, Seal(dir))
	manifest, err := os.ReadFile(filepath.Join(dir, bakedManifest))
	require.NoError(t, err)
	require.Equal(t, 4, strings.Count(string(manifest), "\n"), "the four entries: %s", manifest)

	write("mcp-wasm-rewrite-v1/changed", "after")
	swapped := filepath.Join(dir, "mcp-wasm-compiled-v1", "swapped")
	require.NoError(t, os.Remove(swapped))
	require.NoError(t, os.Symlink(filepath.Join(dir, "stray", "file"), swapped))
	write("wazero-x/added-later", "not in the manifest")

	tmp, err := Overlay(dir, slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(tmp) })
	var linked []string
	require.NoError(t, filepath.WalkDir(tmp, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(tmp, p)
			linked = append(linked, filepath.ToSlash(rel))
		}
		return err
	}))
	require.ElementsMatch(t, []string{"wazero-x/code", "mcp-wasm-rewrite-v1/kept"}, linked)
	b, err := os.ReadFile(filepath.Join(tmp, "wazero-x", "code"))
	require.NoError(t, err)
	require.Equal(t, "native code", string(b))
}

// TestOverlayUnsealed: a directory that was never sealed gives an empty
// overlay; a manifest that cannot be read is a configuration error.
func TestOverlayUnsealed(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	tmp, err := Overlay(t.TempDir(), log)
	require.NoError(t, err)
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, entries)
	require.NoError(t, os.RemoveAll(tmp))

	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, bakedManifest), 0o700)) // not a file
	_, err = Overlay(dir, log)
	require.ErrorIs(t, err, errs.ErrConfig)
}
