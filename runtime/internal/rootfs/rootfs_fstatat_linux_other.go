//go:build linux && !amd64 && !arm64

package rootfs

// sysFstatat (0): no fast path on this architecture (its fstatat may fill
// another struct than syscall.Stat_t); os.Root stats the name.
const sysFstatat = 0
