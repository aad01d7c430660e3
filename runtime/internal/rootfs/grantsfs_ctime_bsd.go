//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package rootfs

import "syscall"

func statCtime(st *syscall.Stat_t) int64 { return st.Ctimespec.Nano() }
