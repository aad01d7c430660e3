package rootfs

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStatBeneath: the openat2 fast path answers for names inside the
// directory, with lstat or stat semantics as asked, and gives up (so that
// os.Root answers, and refuses) on anything that would leave it: "..",
// absolute names, symlinks out (absolute or relative, last or on the way),
// and names with NUL. A FIFO is stat'ed without blocking.
func TestStatBeneath(t *testing.T) {
	base := t.TempDir()
	dir, outside := filepath.Join(base, "in"), filepath.Join(base, "out")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.MkdirAll(outside, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "a.txt"), []byte("abc"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644))
	require.NoError(t, os.Symlink("sub/a.txt", filepath.Join(dir, "inlink")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "abslink")))
	require.NoError(t, os.Symlink("../out/secret", filepath.Join(dir, "rellink")))
	require.NoError(t, os.Symlink("../out", filepath.Join(dir, "outdir")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	d, err := os.Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	fd := int(d.Fd())
	if _, ok := statBeneath(fd, ".", true); !ok {
		t.Skip("no openat2 here (kernel before 5.6, or a seccomp filter): os.Root answers every lookup")
	}

	for _, tc := range []struct {
		name   string
		follow bool
		mode   fs.FileMode
		size   int64
	}{
		{"sub/a.txt", false, 0o644, 3},
		{"sub", false, fs.ModeDir | 0o755, -1},
		{"inlink", false, fs.ModeSymlink | 0o777, -1},
		{"inlink", true, 0o644, 3},
		{"sub/../sub/a.txt", true, 0o644, 3},
		{"fifo", false, fs.ModeNamedPipe | 0o644, -1},
		{"abslink", false, fs.ModeSymlink | 0o777, -1}, // the link itself is inside
	} {
		fi, ok := statBeneath(fd, tc.name, tc.follow)
		require.True(t, ok, tc.name)
		require.Equal(t, tc.mode, fi.Mode(), tc.name)
		if tc.size >= 0 {
			require.Equal(t, tc.size, fi.Size(), tc.name)
		}
		_, isStat := fi.Sys().(*syscall.Stat_t)
		require.True(t, isStat, "wazero reads the inode and times from Sys")
	}
	for _, tc := range []struct {
		name   string
		follow bool
	}{
		{"../out/secret", false}, {"..", false}, {filepath.Join(outside, "secret"), false},
		{"abslink", true}, {"rellink", true}, {"outdir/secret", false}, {"outdir", true},
		{"sub/a.txt\x00", false}, {"missing", false},
	} {
		_, ok := statBeneath(fd, tc.name, tc.follow)
		require.False(t, ok, "%q follow=%v must be left to os.Root", tc.name, tc.follow)
	}
	f, ok := openBeneath(fd, "sub/a.txt", os.O_RDONLY|openSafe)
	require.True(t, ok)
	b := make([]byte, 8)
	n, _ := f.Read(b)
	require.Equal(t, "abc", string(b[:n]))
	require.NoError(t, f.Close())
	_, ok = openBeneath(fd, "rellink", os.O_RDONLY|openSafe)
	require.False(t, ok)
}
