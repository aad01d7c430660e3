//go:build linux || darwin

package rootfs

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// TestRootFSReaddir: a granted directory lists every entry once with the
// type the directory records, in batches of any size, across several
// getdents buffers, and again after a rewind; a single-file mount lists
// only its files, under their guest names.
func TestRootFSReaddir(t *testing.T) {
	dir := t.TempDir()
	want := map[string]fs.FileMode{"sub": fs.ModeDir, "link": fs.ModeSymlink, "pipe": fs.ModeNamedPipe}
	for i := range 3000 { // names of 30+ bytes: more than one 32 KiB buffer
		name := fmt.Sprintf("a-file-with-a-long-enough-name-%04d.txt", i)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), nil, 0o644))
		want[name] = 0
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.Symlink("sub", filepath.Join(dir, "link")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644))

	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = root.Close() })
	fsys := &rootFS{root: root, host: dir}
	f, errno := fsys.OpenFile(".", experimentalsys.O_RDONLY|experimentalsys.O_DIRECTORY, 0)
	require.Zero(t, errno)
	t.Cleanup(func() { _ = f.Close() })

	for _, batch := range []int{1, 7, 500, 4096, -1} {
		got := map[string]fs.FileMode{}
		for {
			ents, errno := f.Readdir(batch)
			require.Zero(t, errno)
			if len(ents) == 0 {
				break
			}
			require.True(t, batch <= 0 || len(ents) <= batch)
			for _, e := range ents {
				_, dup := got[e.Name]
				require.False(t, dup, "%s listed twice", e.Name)
				got[e.Name] = e.Type
			}
		}
		require.Equal(t, want, got, "batch %d", batch)
		_, errno := f.Seek(0, 0)
		require.Zero(t, errno)
	}

	only := &rootFS{root: root, host: dir, only: map[string]string{"x.txt": "a-file-with-a-long-enough-name-2999.txt"},
		onlyHost: map[string]string{"a-file-with-a-long-enough-name-2999.txt": "x.txt"}}
	g, errno := only.OpenFile(".", experimentalsys.O_RDONLY|experimentalsys.O_DIRECTORY, 0)
	require.Zero(t, errno)
	t.Cleanup(func() { _ = g.Close() })
	var names []string
	for {
		ents, errno := g.Readdir(1)
		require.Zero(t, errno)
		if len(ents) == 0 {
			break
		}
		names = append(names, ents[0].Name)
	}
	sort.Strings(names)
	require.Equal(t, []string{"x.txt"}, names)
}

// TestParseDirentsHostile: records that claim more bytes than the buffer
// holds, or fewer than a header, end the parse; nothing reads past buf.
func TestParseDirentsHostile(t *testing.T) {
	for _, reclen := range []uint16{0, 1, uint16(offName), 4096} {
		buf := make([]byte, offName+8)
		buf[0] = 1 // inode
		*(*uint16)(unsafe.Pointer(&buf[offReclen])) = reclen
		copy(buf[offName:], "name\x00")
		require.Empty(t, parseDirents(buf, nil), "reclen %d", reclen)
	}
}
