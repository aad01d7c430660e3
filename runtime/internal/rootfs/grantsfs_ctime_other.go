//go:build unix && !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package rootfs

import "syscall"

// statCtime: no portable change time here; size, modification time and
// the directory watch still tell changes.
func statCtime(*syscall.Stat_t) int64 { return 0 }
