// Package heapsize says what an allocation takes on the Go heap: the
// request rounded up to the allocator's size class. The host's caches
// (the read cache, the list cache) count what they hold with it, so that
// a byte budget bounds the heap rather than the sum of lengths.
package heapsize

import "slices"

// classes are the Go allocator's object sizes up to 32 KiB (Go's
// src/internal/runtime/gc/sizeclasses.go); larger objects take whole 8 KiB
// pages.
var classes = [...]uint16{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792, 2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768}

// Alloc is the heap an allocation of n bytes takes.
func Alloc(n uintptr) int64 {
	if n == 0 {
		return 0
	}
	if n > 32768 {
		const page = 8192
		return int64((n + page - 1) / page * page)
	}
	i, _ := slices.BinarySearch(classes[:], uint16(n))
	return int64(classes[i])
}

// String is the heap a string's bytes take (its header is the holder's).
func String(s string) int64 { return Alloc(uintptr(len(s))) }
