package rootfs

import (
	"io/fs"
	"path"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// Linux's openat2 (5.6+) resolves a path beneath a directory in the kernel:
// with RESOLVE_BENEATH, ".." above the directory, an absolute path or an
// absolute symlink, and a symlink leading out, all fail (EXDEV), at every
// component, atomically. os.Root does the same by opening each directory
// on the way, a syscall per component; here a lookup is one openat2 and
// one fstat, whatever the depth.
const (
	sysOpenat2          = 437 // the same on every Linux architecture
	resolveNoMagiclinks = 0x02
	resolveBeneath      = 0x08
	oPath               = 0x200000 // O_PATH
)

type openHow struct{ flags, mode, resolve uint64 }

// noOpenat2 is set once openat2 is found missing (ENOSYS: an older
// kernel; EPERM: a seccomp filter): every lookup then goes through os.Root.
var noOpenat2 atomic.Bool

// openat2 opens name beneath dirfd. ok is false when the fast path does not
// apply: no openat2, a name with NUL, or any error, which the caller then
// gets from os.Root, so that errors (and refusals) are os.Root's own.
func openat2(dirfd int, name string, flags int) (fd int, ok bool) {
	if dirfd <= 0 || noOpenat2.Load() {
		return -1, false
	}
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return -1, false
	}
	how := openHow{flags: uint64(flags | syscall.O_CLOEXEC), resolve: resolveBeneath | resolveNoMagiclinks}
	for {
		r, _, e := syscall.Syscall6(sysOpenat2, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&how)), unsafe.Sizeof(how), 0, 0)
		switch e {
		case 0:
			return int(r), true
		case syscall.EINTR:
			continue
		case syscall.ENOSYS, syscall.EPERM:
			if e == syscall.ENOSYS || !probeOpenat2(dirfd) {
				noOpenat2.Store(true)
			}
		}
		return -1, false
	}
}

// probeOpenat2 tells a seccomp refusal (EPERM for everything) from a real
// EPERM on one name: the directory itself must open.
func probeOpenat2(dirfd int) bool {
	p, _ := syscall.BytePtrFromString(".")
	how := openHow{flags: oPath | syscall.O_CLOEXEC, resolve: resolveBeneath}
	r, _, e := syscall.Syscall6(sysOpenat2, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&how)), unsafe.Sizeof(how), 0, 0)
	if e != 0 {
		return false
	}
	_ = syscall.Close(int(r))
	return true
}

// statBeneath stats name beneath dirfd (not following a final symlink
// unless follow): one openat2 with O_PATH, which opens nothing for
// reading (a FIFO does not block, a device does not act), and one fstat.
func statBeneath(dirfd int, name string, follow bool) (fs.FileInfo, bool) {
	flags := oPath
	if !follow {
		flags |= syscall.O_NOFOLLOW
	}
	fd, ok := openat2(dirfd, name, flags)
	if !ok {
		return nil, false
	}
	defer syscall.Close(fd)
	st := new(syscall.Stat_t)
	if syscall.Fstat(fd, st) != nil {
		return nil, false
	}
	return &statInfo{name: path.Base(name), st: st}, true
}

// statIn stats name, one component, in dirfd without following a symlink:
// one fstatat, which cannot leave the directory (no "/" to walk, and ".."
// is refused here). ok is false where the fast path does not apply, or on
// any error, which the caller then gets from os.Root.
func statIn(dirfd int, name string) (fs.FileInfo, bool) {
	if sysFstatat == 0 || dirfd <= 0 || name == "" || name == ".." || strings.Contains(name, "/") {
		return nil, false
	}
	p, err := syscall.BytePtrFromString(name) // refuses a NUL
	if err != nil {
		return nil, false
	}
	st := new(syscall.Stat_t)
	for {
		_, _, e := syscall.Syscall6(sysFstatat, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(st)), atSymlinkNoFollow, 0, 0)
		switch e {
		case 0:
			return &statInfo{name: name, st: st}, true
		case syscall.EINTR:
			continue
		}
		return nil, false
	}
}

const atSymlinkNoFollow = 0x100 // AT_SYMLINK_NOFOLLOW, the same on every Linux architecture

// parentDir is a directory beneath a grant, held open (O_PATH) by one
// instance for the rest of its current call, so that the names in it are
// stated with one fstatat each (statIn) instead of an openat2, fstat and
// close per name.
//
// It is opened with openat2 beneath the grant, as every lookup is, and
// closed when the call ends: held no longer than the guest's own directory
// descriptor it reads the entries from, and with no more reach (a
// directory moved out of the grant meanwhile is still the directory the
// call was listing; nothing is opened through it).
type parentDir struct {
	name string // relative to the grant
	fd   int
	held bool
}

// stat stats base, one component, in the directory dir beneath rootfd.
func (d *parentDir) stat(rootfd int, dir, base string) (fs.FileInfo, bool) {
	if !d.held || d.name != dir {
		d.close()
		fd, ok := openat2(rootfd, dir, oPath|syscall.O_DIRECTORY)
		if !ok {
			return nil, false
		}
		d.name, d.fd, d.held = dir, fd, true
	}
	return statIn(d.fd, base)
}

func (d *parentDir) close() {
	if d.held {
		_ = syscall.Close(d.fd)
		*d = parentDir{}
	}
}

// openBeneath opens name beneath dirfd with flag (read-only: the caller's
// flags are O_RDONLY and safety flags).
func openBeneath(dirfd int, name string, flag int) (hostFile, bool) {
	fd, ok := openat2(dirfd, name, flag)
	if !ok {
		return nil, false
	}
	return &rawFile{fd: fd, name: name}, true
}

// rawFile is a file opened by openBeneath: the bare descriptor, with no
// *os.File around it. os.NewFile would ask whether the descriptor is
// non-blocking (fcntl) and, since openSafe makes it so, try to register it
// with the network poller (epoll_ctl, which refuses regular files and
// directories): two system calls on every open, for nothing, since a
// regular file or a directory never blocks. A rawFile belongs to one
// instance's file table and is used by one call at a time; Close closes
// the descriptor once (wazero closes what a guest leaves open when the
// instance closes).
type rawFile struct {
	fd   int
	name string
}

func (f *rawFile) Read(b []byte) (int, error) {
	for {
		n, err := syscall.Read(f.fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, &fs.PathError{Op: "read", Path: f.name, Err: err}
		}
		return n, nil
	}
}

func (f *rawFile) ReadAt(b []byte, off int64) (int, error) {
	for {
		n, err := syscall.Pread(f.fd, b, off)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, &fs.PathError{Op: "pread", Path: f.name, Err: err}
		}
		return n, nil
	}
}

func (f *rawFile) Seek(off int64, whence int) (int64, error) {
	n, err := syscall.Seek(f.fd, off, whence)
	if err != nil {
		return 0, &fs.PathError{Op: "seek", Path: f.name, Err: err}
	}
	return n, nil
}

func (f *rawFile) Stat() (fs.FileInfo, error) {
	st := new(syscall.Stat_t)
	if err := syscall.Fstat(f.fd, st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: f.name, Err: err}
	}
	return &statInfo{name: path.Base(f.name), st: st}, nil
}

func (f *rawFile) Close() error {
	if f.fd < 0 {
		return &fs.PathError{Op: "close", Path: f.name, Err: fs.ErrClosed}
	}
	fd := f.fd
	f.fd = -1
	if err := syscall.Close(fd); err != nil {
		return &fs.PathError{Op: "close", Path: f.name, Err: err}
	}
	return nil
}

// sysfd is the descriptor, for reading a directory (rootfs_dirent_unix.go).
func (f *rawFile) sysfd() int { return f.fd }

// statInfo is an fs.FileInfo of a stat, with the mode bits os gives.
type statInfo struct {
	name string
	st   *syscall.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return s.st }

func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if s.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
