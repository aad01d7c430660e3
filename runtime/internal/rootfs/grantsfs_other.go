//go:build !unix

package rootfs

import "io/fs"

// openSafe is 0 where there are no FIFOs or terminals to swap in for a
// granted file.
const openSafe = 0

// hostCanRead cannot tell from the mode bits here: the open will.
func hostCanRead(fs.FileInfo) bool { return true }

// openNoFollow: the lstat before the open is the only check here.
const openNoFollow = 0

// inodeAndCtime: no inode or change time here; size and modification time
// still tell most changes, and the directory watch the rest.
func inodeAndCtime(fs.FileInfo) (uint64, int64) { return 0, 0 }
