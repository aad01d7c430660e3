//go:build !unix

package runtime

// openNonblock is 0 where there are no FIFOs to swap in for a granted file.
const openNonblock = 0
