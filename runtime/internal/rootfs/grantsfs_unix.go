//go:build unix

package rootfs

import (
	"io/fs"
	"slices"
	"sync"
	"syscall"
)

// openSafe keeps an open of a granted file from blocking the host or
// acquiring a controlling terminal, should a FIFO or a terminal device be
// swapped in between the look at a name and its open; what was opened is
// then refused as not regular.
const openSafe = syscall.O_NONBLOCK | syscall.O_NOCTTY

// openNoFollow makes an open fail on a symlink (the name was looked at
// with lstat first; this closes the window in which it could be swapped).
const openNoFollow = syscall.O_NOFOLLOW

// hostCanRead reports whether the host process may read the file fi
// describes: what access(R_OK) would say for it, from a stat the host made
// anyway (ACLs aside). The superuser reads everything.
func hostCanRead(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	uid, gid, mode := st.Uid, st.Gid, fi.Mode()
	ids := processIDs()
	switch {
	case ids.uid == 0:
		return true
	case uid == ids.uid:
		return mode&0o400 != 0
	case ids.inGroup(gid):
		return mode&0o040 != 0
	}
	return mode&0o004 != 0
}

type ids struct {
	uid    uint32
	groups []uint32 // the effective group and the supplementary ones
}

func (i ids) inGroup(gid uint32) bool { return slices.Contains(i.groups, gid) }

var processIDs = sync.OnceValue(func() ids {
	out := ids{uid: uint32(syscall.Geteuid()), groups: []uint32{uint32(syscall.Getegid())}}
	if gs, err := syscall.Getgroups(); err == nil {
		for _, g := range gs {
			out.groups = append(out.groups, uint32(g))
		}
	}
	return out
})

// inodeAndCtime returns a file's inode number and change time.
func inodeAndCtime(fi fs.FileInfo) (uint64, int64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return uint64(st.Ino), statCtime(st)
}
