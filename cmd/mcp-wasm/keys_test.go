package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// TestMachineKeys_processesAgree: processes starting at once (here,
// goroutines racing through the same steps) all end up with the one key
// the first of them wrote; the file is 0600 in a 0700 directory, and
// later calls read it back.
func TestMachineKeys_processesAgree(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys")
	const n = 16
	got := make([][][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { got[i], errs[i] = machineKeys(dir) })
	}
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i])
		require.Len(t, got[i], 1)
		require.Equal(t, got[0][0], got[i][0])
	}
	require.Len(t, got[0][0], 64, "32 random bytes in hex")
	fi, err := os.Stat(filepath.Join(dir, cursorKeyName))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	di, err := os.Stat(dir)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), di.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left behind")
	again, err := machineKeys(dir)
	require.NoError(t, err)
	require.Equal(t, got[0], again)
}

// TestKeyFiles_refused: a key file or directory other users may read, a
// symbolic link where mcp-wasm makes its own key, a key too short or no
// key at all are refused, each with the fix.
func TestKeyFiles_refused(t *testing.T) {
	good := strings.Repeat("k", 32) + "\n"
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string) string // returns the path to read
		machine bool                                  // the machine key under a cache dir, else --keys-file
		want    string
	}{
		{"world-readable key file", func(t *testing.T, dir string) string {
			return writeKey(t, dir, "k", good, 0o644)
		}, false, "chmod 600"},
		{"group-writable key file", func(t *testing.T, dir string) string {
			return writeKey(t, dir, "k", good, 0o620)
		}, false, "chmod 600"},
		{"short key", func(t *testing.T, dir string) string {
			return writeKey(t, dir, "k", "short\n", 0o600)
		}, false, "16 bytes or more"},
		{"no key", func(t *testing.T, dir string) string {
			return writeKey(t, dir, "k", "# nothing\n\n", 0o600)
		}, false, "holds no key"},
		{"a directory", func(t *testing.T, dir string) string {
			require.NoError(t, os.Mkdir(filepath.Join(dir, "d"), 0o700))
			return filepath.Join(dir, "d")
		}, false, "not a regular file"},
		{"symlinked machine key", func(t *testing.T, dir string) string {
			keys := filepath.Join(dir, "keys")
			require.NoError(t, os.Mkdir(keys, 0o700))
			target := writeKey(t, dir, "elsewhere", good, 0o600)
			require.NoError(t, os.Symlink(target, filepath.Join(keys, cursorKeyName)))
			return keys
		}, true, "is a symbolic link"},
		{"open key directory", func(t *testing.T, dir string) string {
			keys := filepath.Join(dir, "keys")
			require.NoError(t, os.Mkdir(keys, 0o755))
			require.NoError(t, os.Chmod(keys, 0o755))
			return keys
		}, true, "chmod 700"},
		{"world-readable machine key", func(t *testing.T, dir string) string {
			keys := filepath.Join(dir, "keys")
			require.NoError(t, os.Mkdir(keys, 0o700))
			writeKey(t, keys, cursorKeyName, good, 0o644)
			return keys
		}, true, "chmod 600"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.setup(t, t.TempDir())
			var err error
			if tt.machine {
				_, err = machineKeys(path)
			} else {
				_, err = readKeyFile(path, true)
			}
			require.ErrorContains(t, err, tt.want)
		})
	}
}

// TestKeyFiles_rotation: a key file's first key signs, the later ones are
// accepted; a fleet key may be a symbolic link (as Kubernetes mounts
// secrets), the file it names still private.
func TestKeyFiles_rotation(t *testing.T) {
	dir := t.TempDir()
	path := writeKey(t, dir, "fleet", "# rotated 2026-11\n"+strings.Repeat("n", 20)+"\n\n"+strings.Repeat("o", 20)+"\n", 0o600)
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(path, link))
	keys, err := readKeyFile(link, true)
	require.NoError(t, err)
	require.Equal(t, [][]byte{[]byte(strings.Repeat("n", 20)), []byte(strings.Repeat("o", 20))}, keys)
}

func writeKey(t *testing.T, dir, name, text string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(text), mode))
	require.NoError(t, os.Chmod(path, mode)) // past the umask
	return path
}

// TestE2E_CursorsAcrossProcesses: as supergateway's stateless mode runs
// one mcp-wasm per request, page 1 comes from one process and page 2 from
// another (the real binary over stdio, the same cache directory, no
// key configured): the cursor works. A tampered cursor and one signed by
// another key are refused; a key file that names the machine key as its
// previous key (a rotation) still takes it.
func TestE2E_CursorsAcrossProcesses(t *testing.T) {
	dir := filesTree(t)
	cache := filepath.Join(t.TempDir(), "cache") // made by the first process, 0700
	args := []string{"--allow-dir", dir, "--page-size", "1", "--cache-dir", cache}
	page := func(cursor string, extra ...string) (*mcp.ListResourcesResult, error) {
		cs := connect(t, "2026-07-28", append(args, extra...)...)
		defer cs.Close()
		return cs.ListResources(context.Background(), &mcp.ListResourcesParams{Cursor: cursor})
	}
	first, err := page("")
	require.NoError(t, err)
	require.NotEmpty(t, first.NextCursor)
	second, err := page(first.NextCursor)
	require.NoError(t, err, "a second process continues the first one's listing")
	require.NotEqual(t, first.Resources[0].URI, second.Resources[0].URI)

	tampered := []byte(first.NextCursor)
	tampered[len(tampered)/2] ^= 1
	_, err = page(string(tampered))
	require.Equal(t, int64(-32602), rpcCode(t, err), "a tampered cursor is refused")

	foreign := writeKey(t, t.TempDir(), "fleet", strings.Repeat("f", 32)+"\n", 0o600)
	_, err = page(first.NextCursor, "--keys-file", foreign)
	require.Equal(t, int64(-32602), rpcCode(t, err), "another key's cursor is refused")

	machine, err := os.ReadFile(filepath.Join(cache, keysDirName, cursorKeyName))
	require.NoError(t, err)
	rotated := writeKey(t, t.TempDir(), "fleet", strings.Repeat("r", 32)+"\n"+string(machine), 0o600)
	_, err = page(first.NextCursor, "--keys-file", rotated)
	require.NoError(t, err, "a previous key's cursor is still accepted")
}
