package rootfs

import "syscall"

// sysFstatat is fstatat(2) with the struct stat of syscall.Stat_t.
const sysFstatat = syscall.SYS_FSTATAT
