package runtime_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// TestGrantTreeSpecialFilesRefused: every special file in a granted tree,
// reached directly or through a symlink, is refused with EPERM without
// being opened. The errno shows it: opening a socket fails with ENXIO and
// opening a device without a driver with ENXIO or ENODEV, which the guest
// saw (as EIO or ENODEV) when the host opened first and looked after.
func TestGrantTreeSpecialFilesRefused(t *testing.T) {
	const eperm = "errno 63" // WASI's EPERM
	const eloop = "errno 32" // WASI's ELOOP
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ok.txt"), []byte("fine"), 0o644))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644))
	l, err := net.Listen("unix", filepath.Join(dir, "sock"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	paths := []string{"pipe", "sock", "to_sock"}
	require.NoError(t, os.Symlink("sock", filepath.Join(dir, "to_sock")))
	// Major 240 is reserved for local use: no driver answers it here.
	if err := syscall.Mknod(filepath.Join(dir, "nodev"), syscall.S_IFCHR|0o644, 240<<8); err == nil {
		require.NoError(t, syscall.Mknod(filepath.Join(dir, "noblk"), syscall.S_IFBLK|0o644, 240<<8))
		paths = append(paths, "nodev", "noblk")
	} else {
		t.Logf("device nodes not tested: mknod: %v", err)
	}
	p := grantProbe(t, runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: dir}}})
	got, err := probe(t, p, "r3ok.txt")
	require.NoError(t, err)
	require.Equal(t, "fine", got)
	for _, path := range paths {
		for _, mode := range []string{"r3", "n3"} {
			_, err := probe(t, p, mode+path)
			require.ErrorIs(t, err, abi.ErrNotFound, mode+path)
			want := eperm
			if mode == "n3" && path == "to_sock" {
				want = eloop // not following the link, as asked: the link itself is not opened
			}
			require.ErrorContains(t, err, want, mode+path)
		}
	}
}

// TestGrantFilesClosedWithInstance: a granted file's descriptor is the
// host's own (no *os.File, no finalizer behind it), so whatever a guest
// leaves open must be closed with its instance, whether the instance is
// replaced after a trap or closed with the provider. A guest opens files
// and never closes them; the process's open descriptors come back to
// where they were. The files are in a subdirectory, so each call also
// holds the parent directory open (parentDir) until it ends.
func TestGrantFilesClosedWithInstance(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("fine"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "b.txt"), []byte("deep"), 0o644))
	p := grantProbe(t, runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: dir}}})
	got, err := probe(t, p, "r3a.txt")
	require.NoError(t, err)
	require.Equal(t, "fine", got)
	before := openFDs(t, dir)

	const leaked = 50
	for range leaked {
		got, err := probe(t, p, "l3sub/b.txt")
		require.NoError(t, err)
		require.Equal(t, "deep", got)
	}
	require.Equal(t, before+leaked, openFDs(t, dir), "each open the guest left is one host descriptor")
	_, err = probe(t, p, "t3sub/b.txt") // one more left open, then a trap
	require.ErrorIs(t, err, abi.ErrTrap)
	got, err = probe(t, p, "r3a.txt") // on a fresh instance
	require.NoError(t, err)
	require.Equal(t, "fine", got)
	require.Equal(t, before, openFDs(t, dir), "the trapped instance's files were not closed")

	for range leaked {
		_, err := probe(t, p, "l3sub/b.txt")
		require.NoError(t, err)
	}
	require.NoError(t, p.Close(t.Context()))
	require.LessOrEqual(t, openFDs(t, dir), before, "the closed provider's files were not closed")
}

// openFDs counts this process's open file descriptors on dir or anything
// under it. Descriptors elsewhere do not count: other tests' providers may
// still be closing, and the runtime opens files of its own.
func openFDs(t *testing.T, dir string) int {
	t.Helper()
	dir, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	entries, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	n := 0
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err != nil {
			continue // closed meanwhile, or the directory read itself
		}
		if target == dir || strings.HasPrefix(target, dir+string(filepath.Separator)) {
			n++
		}
	}
	return n
}
