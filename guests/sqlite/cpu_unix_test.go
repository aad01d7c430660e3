//go:build unix

package main_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) this process has used: the
// wasm and native benchmarks report it per operation, to compare with
// the sqlite3 shell's own CPU time on a machine whose other load would
// skew wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
