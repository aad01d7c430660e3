//go:build wasip1

package sqliteprov

import "unsafe"

//go:wasmimport wasi_snapshot_preview1 fd_prestat_get
//go:noescape
func fdPrestatGet(fd int32, prestat unsafe.Pointer) int32

//go:wasmimport wasi_snapshot_preview1 fd_prestat_dir_name
//go:noescape
func fdPrestatDirName(fd int32, buf unsafe.Pointer, n int32) int32

// maxPreopens bounds the descriptors asked about.
const maxPreopens = 4096

// Preopens returns the guest paths of the directories the host preopened,
// asked for from descriptor 3 on until one is not a preopen.
func Preopens() []string {
	var dirs []string
	for fd := int32(3); fd < 3+maxPreopens; fd++ {
		var prestat struct {
			tag     uint8
			_       [3]uint8
			nameLen uint32
		}
		if fdPrestatGet(fd, unsafe.Pointer(&prestat)) != 0 {
			break
		}
		if prestat.tag != 0 || prestat.nameLen == 0 || prestat.nameLen > 1<<16 {
			continue
		}
		name := make([]byte, prestat.nameLen)
		if fdPrestatDirName(fd, unsafe.Pointer(&name[0]), int32(len(name))) != 0 {
			continue
		}
		dirs = append(dirs, string(name))
	}
	return dirs
}
