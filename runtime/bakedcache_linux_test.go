//go:build linux

package runtime_test

import (
	"bytes"
	"crypto/sha256"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// snapshot is every file under dir: its mode, size, time and digest.
func snapshot(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		fi, err := os.Lstat(p)
		require.NoError(t, err)
		var sum [32]byte
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			sum = sha256.Sum256(b)
		}
		out[p] = fi.Mode().String() + " " + fi.ModTime().Format(time.RFC3339Nano) + " " + string(sum[:])
		return nil
	}))
	return out
}

// lockedBuf is a log sink for one runtime.
type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuf) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// TestBakedCacheReadOnly bakes a module into a cache directory, then uses
// it read-only: the baked module loads and serves, a module it does not
// hold compiles in a worker with a warning, and not a byte, name or time
// under the directory changes. An entry changed after baking is not used.
func TestBakedCacheReadOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "baked")
	baked, other := unique(), unique()
	rt := newRuntime(t, runtime.NewConfig().WithCacheDir(dir))
	loadProvider(t, rt, baked)
	require.NoError(t, rt.Seal())
	before := snapshot(t, dir)

	var logs lockedBuf
	log := slog.New(slog.NewTextHandler(&logs, nil))
	workers := runtime.WorkersStarted()
	ro := newRuntime(t, runtime.NewConfig().WithCacheDir(dir).WithCacheReadOnly(true).WithLogger(log))
	readOK(t, loadProvider(t, ro, baked))
	require.Contains(t, logs.String(), "read-only cache dir")
	require.NotContains(t, logs.String(), "not in the read-only cache dir", "the baked module is found")
	readOK(t, loadProvider(t, ro, other))
	require.Equal(t, workers+1, runtime.WorkersStarted(), "a module not baked compiles in a worker")
	require.Contains(t, logs.String(), "not in the read-only cache dir")
	require.Equal(t, before, snapshot(t, dir), "a read-only cache dir is never written")

	// A code entry changed after baking: left out, and its module still loads.
	var code string
	for p := range before {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && strings.HasPrefix(filepath.Base(filepath.Dir(p)), "wazero-") {
			code = p
		}
	}
	require.NotEmpty(t, code, "wazero's code entry")
	require.NoError(t, os.WriteFile(code, []byte("not code"), 0o600))
	logs = lockedBuf{}
	ro2 := newRuntime(t, runtime.NewConfig().WithCacheDir(dir).WithCacheReadOnly(true).WithLogger(log))
	require.Contains(t, logs.String(), "skipped=1")
	readOK(t, loadProvider(t, ro2, baked))
}

// TestBakedCacheUnwritableDir: a cache directory that cannot be written is
// used read-only without being told. Root writes through modes, so the
// test needs another user.
func TestBakedCacheUnwritableDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes through a directory's mode; the read-only bind mount check is in scripts/coldstart.sh")
	}
	dir := filepath.Join(t.TempDir(), "baked")
	baked := unique()
	rt := newRuntime(t, runtime.NewConfig().WithCacheDir(dir))
	loadProvider(t, rt, baked)
	require.NoError(t, rt.Seal())
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d.IsDir() {
			return os.Chmod(p, 0o500)
		}
		return err
	}))
	t.Cleanup(func() {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, _ error) error { return os.Chmod(p, 0o700) })
	})
	before := snapshot(t, dir)
	var logs lockedBuf
	ro := newRuntime(t, runtime.NewConfig().WithCacheDir(dir).WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	readOK(t, loadProvider(t, ro, baked))
	require.Contains(t, logs.String(), "read-only cache dir")
	require.Equal(t, before, snapshot(t, dir))
}
