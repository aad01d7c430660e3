//go:build unix

package hostfile

import "syscall"

// openFlags make open(2) return at once for a FIFO (which would otherwise
// wait for a writer) and keep a terminal device from becoming the
// process's controlling terminal. A regular file ignores O_NONBLOCK.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY
