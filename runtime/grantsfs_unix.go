//go:build unix

package runtime

import "syscall"

// openNonblock keeps an open of a FIFO swapped in for a granted file from
// blocking the host; the file is then refused as not regular.
const openNonblock = syscall.O_NONBLOCK
