//go:build linux || darwin

package rootfs

import (
	"io/fs"
	"os"
	"syscall"
	"unsafe"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// direntBufSize is what one getdents call may fill.
const direntBufSize = 32 << 10

// next returns up to n entries (n <= 0: all that are left), reading the
// directory with getdents and taking each entry's type from its d_type.
func (d *direntReader) next(f hostFile, n int) ([]experimentalsys.Dirent, error) {
	for !d.eof && (n <= 0 || len(d.pending) < n) {
		if err := d.fill(f); err != nil {
			return nil, err
		}
	}
	return d.take(n), nil
}

// fill reads one buffer of entries into pending, or sets eof.
func (d *direntReader) fill(f hostFile) error {
	if d.buf == nil {
		d.buf = make([]byte, direntBufSize)
	}
	if raw, ok := f.(interface{ sysfd() int }); ok {
		n, err := readDirent(raw.sysfd(), d.buf)
		if err != nil {
			return err
		}
		d.add(n)
		return nil
	}
	of, ok := f.(*os.File)
	if !ok {
		return syscall.ENOTDIR
	}
	rc, err := of.SyscallConn()
	if err != nil {
		return err
	}
	var n int
	var rerr error
	if err := rc.Read(func(fd uintptr) bool {
		n, rerr = syscall.ReadDirent(int(fd), d.buf)
		return rerr != syscall.EAGAIN
	}); err != nil {
		return err
	}
	if rerr != nil {
		return rerr
	}
	d.add(n)
	return nil
}

// add takes the n bytes of entries a read left in buf (none: the end).
func (d *direntReader) add(n int) {
	if n <= 0 {
		d.eof = true
		return
	}
	d.pending = parseDirents(d.buf[:n], d.pending)
}

// readDirent reads a descriptor's entries, retrying an interrupted call.
func readDirent(fd int, buf []byte) (int, error) {
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err != syscall.EINTR {
			return n, err
		}
	}
}

// Offsets in a record of syscall.ReadDirent (struct dirent on darwin,
// struct linux_dirent64 on Linux).
var (
	offReclen = int(unsafe.Offsetof(syscall.Dirent{}.Reclen))
	offType   = int(unsafe.Offsetof(syscall.Dirent{}.Type))
	offName   = int(unsafe.Offsetof(syscall.Dirent{}.Name))
)

// parseDirents appends the entries of buf (whole records, as the kernel
// wrote them), skipping "." and "..", and entries whose inode is 0
// (deleted, on darwin).
func parseDirents(buf []byte, out []experimentalsys.Dirent) []experimentalsys.Dirent {
	for len(buf) > offName {
		reclen := int(*(*uint16)(unsafe.Pointer(&buf[offReclen])))
		if reclen <= offName || reclen > len(buf) {
			return out // not a record: stop rather than read past it
		}
		rec := buf[:reclen]
		buf = buf[reclen:]
		if *(*uint64)(unsafe.Pointer(&rec[0])) == 0 {
			continue
		}
		name := rec[offName:]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if string(name) == "." || string(name) == ".." || len(name) == 0 {
			continue
		}
		out = append(out, experimentalsys.Dirent{Name: string(name), Type: dtType(rec[offType])})
	}
	return out
}

// dtType maps d_type to a file mode type, as os.ReadDir does; an unknown
// type (file systems without d_type) is ModeIrregular, which the guest
// sees as FILETYPE_UNKNOWN and stats.
func dtType(t byte) fs.FileMode {
	switch t {
	case syscall.DT_REG:
		return 0
	case syscall.DT_DIR:
		return fs.ModeDir
	case syscall.DT_LNK:
		return fs.ModeSymlink
	case syscall.DT_FIFO:
		return fs.ModeNamedPipe
	case syscall.DT_SOCK:
		return fs.ModeSocket
	case syscall.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.DT_BLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}
