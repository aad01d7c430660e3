//go:build unix

package runtime

import "syscall"

// openSafe keeps an open of a granted file from blocking the host or
// acquiring a controlling terminal, should a FIFO or a terminal device be
// swapped in between the look at a name and its open; what was opened is
// then refused as not regular.
const openSafe = syscall.O_NONBLOCK | syscall.O_NOCTTY
