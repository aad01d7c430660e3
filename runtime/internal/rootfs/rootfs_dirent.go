package rootfs

import experimentalsys "github.com/tetratelabs/wazero/experimental/sys"

// direntReader hands out a directory's entries n at a time: read ahead
// by the platform's reader (rootfs_dirent_unix.go, rootfs_dirent_other.go)
// into pending.
type direntReader struct {
	pending []experimentalsys.Dirent
	eof     bool
	picked  bool   // pending holds the picked names of a single-file mount
	buf     []byte // the unix reader's buffer
}

func (d *direntReader) reset() { *d = direntReader{buf: d.buf} }

// take returns up to n (n <= 0: all) of the pending entries.
func (d *direntReader) take(n int) []experimentalsys.Dirent {
	if n <= 0 || n > len(d.pending) {
		n = len(d.pending)
	}
	out := d.pending[:n:n]
	d.pending = d.pending[n:]
	return out
}
