// Package rootfs serves an operator's file grants to a guest as wazero's
// low-level filesystem, read-only, on an os.Root: every path resolves
// inside the granted directory, special files are never opened, a mount of
// single files serves only their names, and an instance holds at most
// maxOpenFiles open. It records what each call looked up, for the read
// cache. It plans nothing: the root hands it the directory to open.
package rootfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/sys"
)

// FS is a granted directory as wazero's filesystem (rootFS).
type FS = rootFS

// rootFS is a granted directory as wazero's low-level filesystem
// (experimental/sys.FS), on an os.Root: every path resolves inside the
// root, and a "..", absolute path or symlink that would leave it fails.
// It is read-only, and answers the guest's questions the way the guest
// asked them:
//   - stat never opens the file, as wazero's fs.FS adapter does: on Linux
//     it is one openat2 (O_PATH, resolved beneath the root) and one fstat,
//     elsewhere os.Root's walk to the name and one fstatat;
//   - lstat does not follow a symlink, so a guest that checks for links
//     sees them; readlink is refused (a link's text may name host paths
//     outside the grant), and open with O_NOFOLLOW refuses a link;
//   - a special file (FIFO, socket, device) is refused with EPERM, by
//     stat, lstat and open, without ever opening it: opening a FIFO blocks
//     in the kernel, inside a host function no deadline can interrupt, and
//     opening a device can act. WASI preview 1 has no file type for a FIFO
//     or a socket, so there is no truthful answer to give. What open
//     opened is checked again (the name may have been swapped meanwhile),
//     and opened non-blocking, without acquiring a terminal.
//
// Anything that would write is refused with EROFS.
type rootFS struct {
	experimentalsys.UnimplementedFS
	root *os.Root
	host string // the root's host path
	// dirfd is the root directory's descriptor, for stat's fast path
	// (rootfs_stat_linux.go); the provider closes it with the root.
	dirfd int
	// track, in an instance's copy of the mount, records the lookups of
	// the instance's current call (track.go).
	track *Track
	// parent, in an instance's copy, holds the directory the current call
	// last looked a deeper name up in (rootfs_stat_linux.go), until the
	// call ends (endCall).
	parent parentDir
	// only, when set, holds the names this directory serves (single-file
	// grants, see Open), guest name -> host name; every other name
	// does not exist, and a symlink put in place of one is refused (the
	// operator's symlinks were resolved when the grant was planned).
	// onlyHost is the reverse map.
	only, onlyHost map[string]string
	// files, in an instance's copy, counts the files the instance holds
	// open across its mounts (rootfs_limit.go).
	files *OpenFiles
}

// name maps a guest path (relative to the mount, as wazero passes it) to
// a name in the root, or reports that it does not exist.
func (r *rootFS) name(p string) (string, experimentalsys.Errno) {
	p = path.Clean("/" + p)[1:]
	if p == "" {
		p = "."
	}
	if r.only == nil || p == "." {
		return p, 0
	}
	if h, ok := r.only[p]; ok {
		return h, 0
	}
	return "", experimentalsys.ENOENT
}

func (r *rootFS) stat(p string, follow bool) (sys.Stat_t, experimentalsys.Errno) {
	n, errno := r.name(p)
	if errno != 0 {
		return sys.Stat_t{}, errno
	}
	if r.only != nil && n != "." {
		follow = false // a symlink in place of a granted file is refused
	}
	fi, err := r.lookup(n, follow)
	r.record(n, follow, fi, err)
	if err != nil {
		return sys.Stat_t{}, experimentalsys.UnwrapOSError(err)
	}
	if r.only != nil && n != "." && !fi.Mode().IsRegular() {
		return sys.Stat_t{}, experimentalsys.EPERM
	}
	if !servable(fi) && fi.Mode()&fs.ModeSymlink == 0 {
		return sys.Stat_t{}, experimentalsys.EPERM
	}
	if r.only != nil && n == "." {
		fi = readOnlyDir{FileInfo: fi}
	}
	if fi.Mode().IsRegular() && !hostCanRead(fi) {
		// A file the host cannot read is reported as such by stat too, so
		// a guest does not offer what it cannot deliver (WASI's stat has
		// no permission bits to tell it).
		return sys.Stat_t{}, experimentalsys.EACCES
	}
	return sys.NewStat_t(fi), 0
}

// lookup stats the name n in the root, following a final symlink (inside
// the root) if follow: in one openat2 and one fstat where the kernel has
// openat2 (statBeneath), else, and whenever that fails, through os.Root,
// which opens each directory on the way, so that every error is os.Root's.
//
// A deeper name is first looked up in its parent directory, held open for
// the rest of the call: a listing stats every entry of a directory, and
// then pays one fstatat per entry instead of openat2, fstat and close.
func (r *rootFS) lookup(n string, follow bool) (fs.FileInfo, error) {
	if i := strings.LastIndexByte(n, '/'); i > 0 {
		if fi, ok := r.parent.stat(r.dirfd, n[:i], n[i+1:]); ok && (!follow || fi.Mode()&fs.ModeSymlink == 0) {
			return fi, nil
		}
	}
	return r.dir().lookup(n, follow)
}

// EndCall closes what the call held open (the parent directory).
func (r *rootFS) EndCall() { r.parent.close() }

// ForInstance is an instance's own copy of the mount: it records the
// lookups of the instance's calls into track (nil: none), and counts its
// open files in files, which the instance's mounts share (rootfs_limit.go).
func (r *rootFS) ForInstance(track *Track, files *OpenFiles) *FS {
	own := *r
	own.track, own.parent, own.files = track, parentDir{}, files
	return &own
}

// Host is the granted directory's host path.
func (r *rootFS) Host() string { return r.host }

// Only is the names a mount of single files serves (guest name -> host
// name), or nil for a whole tree. The caller must not change it.
func (r *rootFS) Only() map[string]string { return r.only }

func (r *rootFS) dir() grantDir { return grantDir{root: r.root, dirfd: r.dirfd} }

// grantDir is a granted directory as lookups see it: what the guest's
// stats and opens resolve names in, and what the read cache re-checks
// them in (Stamp.Current), by the same rules.
type grantDir struct {
	root  *os.Root
	dirfd int // for the fast path (rootfs_stat_linux.go); 0 if none
}

// lookup stats the clean relative name n beneath the directory. A name of
// one component is one fstatat on the directory that does not follow a
// symlink (statIn); a deeper name takes the fast path where the kernel has
// one (openat2, fstat, close, where os.Root opens every directory on the
// way). A followed symlink, any error, and every platform without the
// fast paths go to os.Root, which resolves a symlink inside the root and
// gives its own errors.
func (d grantDir) lookup(n string, follow bool) (fs.FileInfo, error) {
	if !strings.Contains(n, "/") {
		if fi, ok := statIn(d.dirfd, n); ok && (!follow || fi.Mode()&fs.ModeSymlink == 0) {
			return fi, nil
		}
	} else if fi, ok := statBeneath(d.dirfd, n, follow); ok {
		return fi, nil
	}
	if follow {
		return d.root.Stat(n)
	}
	return d.root.Lstat(n)
}

// open opens the name n in the root read-only with flag: in one openat2
// where the kernel has it (openBeneath), else through os.Root.
func (r *rootFS) open(n string, flag int) (hostFile, error) {
	if f, ok := openBeneath(r.dirfd, n, flag); ok {
		return f, nil
	}
	return r.root.OpenFile(n, flag, 0)
}

// hostFile is a file rootFS opened: an *os.File from os.Root, or on
// Linux's fast path the bare descriptor (rawFile, rootfs_stat_linux.go).
type hostFile interface {
	Read([]byte) (int, error)
	ReadAt([]byte, int64) (int, error)
	Seek(int64, int) (int64, error)
	Stat() (fs.FileInfo, error)
	Close() error
}

// record notes a lookup for the read cache: what it found, or that the
// name was absent (a file appearing later changes the read too).
func (r *rootFS) record(name string, follow bool, fi fs.FileInfo, err error) {
	if r.track == nil {
		return
	}
	s := Stamp{dir: r.dir(), root: r.host, name: name, follow: follow}
	switch {
	case err == nil:
		s.setInfo(fi)
	case !errors.Is(err, fs.ErrNotExist):
		r.track.Overflow = true // an error the cache cannot re-check: do not cache
		return
	}
	r.track.add(s)
}

// Stat implements experimentalsys.FS.
func (r *rootFS) Stat(p string) (sys.Stat_t, experimentalsys.Errno) { return r.stat(p, true) }

// Lstat implements experimentalsys.FS.
func (r *rootFS) Lstat(p string) (sys.Stat_t, experimentalsys.Errno) { return r.stat(p, false) }

// Readlink implements experimentalsys.FS: refused.
func (r *rootFS) Readlink(string) (string, experimentalsys.Errno) { return "", experimentalsys.EPERM }

// OpenFile implements experimentalsys.FS, read-only.
func (r *rootFS) OpenFile(p string, flag experimentalsys.Oflag, _ fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	if flag&(experimentalsys.O_WRONLY|experimentalsys.O_RDWR|experimentalsys.O_CREAT|experimentalsys.O_TRUNC|experimentalsys.O_APPEND|experimentalsys.O_EXCL) != 0 {
		return nil, experimentalsys.EROFS
	}
	n, errno := r.name(p)
	if errno != 0 {
		return nil, errno
	}
	if r.only != nil && n != "." {
		flag |= experimentalsys.O_NOFOLLOW // a symlink in place of a granted file is refused
	}
	osFlag := os.O_RDONLY | openSafe
	if flag&experimentalsys.O_NOFOLLOW != 0 {
		osFlag |= openNoFollow
	}
	// Look before opening: never open what is not a regular file or a
	// directory.
	fi, err := r.lookup(n, flag&experimentalsys.O_NOFOLLOW == 0)
	r.record(n, flag&experimentalsys.O_NOFOLLOW == 0, fi, err)
	switch {
	case err != nil:
		return nil, experimentalsys.UnwrapOSError(err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, experimentalsys.ELOOP
	case !servable(fi), r.only != nil && n != "." && !fi.Mode().IsRegular():
		return nil, experimentalsys.EPERM
	case flag&experimentalsys.O_DIRECTORY != 0 && !fi.IsDir():
		return nil, experimentalsys.ENOTDIR
	}
	if errno := r.files.acquire(); errno != 0 {
		return nil, errno
	}
	f, err := r.open(n, osFlag)
	if err != nil {
		r.files.release()
		return nil, experimentalsys.UnwrapOSError(err)
	}
	if fi, err = f.Stat(); err != nil || !servable(fi) || (r.only != nil && n != "." && fi.IsDir()) {
		_ = f.Close()
		r.files.release()
		return nil, experimentalsys.EPERM
	}
	// The stat just taken answers the guest's first stat of the file (the
	// usual next call: how big is it?), rather than a second fstat a few
	// microseconds later.
	rf := &rootFile{f: f, dir: fi.IsDir(), opened: fi, count: r.files}
	if r.only != nil && n == "." {
		rf.onlyHost = r.onlyHost
	}
	return rf, 0
}

// Everything that would write.
func (r *rootFS) Mkdir(string, fs.FileMode) experimentalsys.Errno { return experimentalsys.EROFS }
func (r *rootFS) Chmod(string, fs.FileMode) experimentalsys.Errno { return experimentalsys.EROFS }
func (r *rootFS) Rename(string, string) experimentalsys.Errno     { return experimentalsys.EROFS }
func (r *rootFS) Rmdir(string) experimentalsys.Errno              { return experimentalsys.EROFS }
func (r *rootFS) Unlink(string) experimentalsys.Errno             { return experimentalsys.EROFS }
func (r *rootFS) Link(string, string) experimentalsys.Errno       { return experimentalsys.EROFS }
func (r *rootFS) Symlink(string, string) experimentalsys.Errno    { return experimentalsys.EROFS }
func (r *rootFS) Utimens(string, int64, int64) experimentalsys.Errno {
	return experimentalsys.EROFS
}

// rootFile is an open regular file or directory of a rootFS.
type rootFile struct {
	experimentalsys.UnimplementedFile
	f   hostFile
	dir bool
	// opened is the stat OpenFile checked the file with, given out by
	// the first Stat and then dropped: later stats ask again.
	opened fs.FileInfo
	// onlyHost: see rootFS (the directory of single-file grants lists
	// only their files, under their granted names).
	onlyHost map[string]string
	// dirents reads the directory's entries (rootfs_dirent_*.go).
	dirents direntReader
	// count is the instance's open-file count, released once at Close.
	count *OpenFiles
}

func (f *rootFile) Dev() (uint64, experimentalsys.Errno) {
	st, errno := f.Stat()
	return st.Dev, errno
}

func (f *rootFile) Ino() (sys.Inode, experimentalsys.Errno) {
	st, errno := f.Stat()
	return st.Ino, errno
}

func (f *rootFile) IsDir() (bool, experimentalsys.Errno) { return f.dir, 0 }

func (f *rootFile) Stat() (sys.Stat_t, experimentalsys.Errno) {
	if fi := f.opened; fi != nil {
		f.opened = nil
		return sys.NewStat_t(fi), 0
	}
	fi, err := f.f.Stat()
	if err != nil {
		return sys.Stat_t{}, experimentalsys.UnwrapOSError(err)
	}
	return sys.NewStat_t(fi), 0
}

func (f *rootFile) Read(buf []byte) (int, experimentalsys.Errno) {
	if f.dir {
		return 0, experimentalsys.EISDIR
	}
	n, err := f.f.Read(buf)
	return n, eofIsOK(err)
}

func (f *rootFile) Pread(buf []byte, off int64) (int, experimentalsys.Errno) {
	if f.dir {
		return 0, experimentalsys.EISDIR
	}
	n, err := f.f.ReadAt(buf, off)
	return n, eofIsOK(err)
}

// Seek implements wazero's experimentalsys.File, whose Seek returns an
// Errno, not an error: `go vet`'s stdmethods check reports that signature,
// so the Makefile vets this package with -stdmethods=false (wazero's own
// file types carry the same signature).
func (f *rootFile) Seek(off int64, whence int) (int64, experimentalsys.Errno) {
	n, err := f.f.Seek(off, whence)
	if err == nil && f.dir {
		f.dirents.reset() // a rewind: read the directory again
	}
	return n, experimentalsys.UnwrapOSError(err)
}

// Readdir lists entries with the type the directory itself records (no
// stat per entry: os.File.ReadDir on a directory opened in an os.Root
// would lstat every entry). Special files are listed (the guest may skip
// them by their type); opening or stating one is refused. Entries of
// unknown type (a file system without d_type) are listed as such, and the
// guest stats them.
func (f *rootFile) Readdir(n int) ([]experimentalsys.Dirent, experimentalsys.Errno) {
	if !f.dir {
		return nil, experimentalsys.ENOTDIR
	}
	if f.onlyHost == nil {
		out, err := f.dirents.next(f.f, n)
		return out, experimentalsys.UnwrapOSError(err)
	}
	// The directory of single-file grants: only the granted names, under
	// their guest names. wazero stops at fewer than n entries, so the
	// granted names are picked from the whole directory first.
	if !f.dirents.picked {
		all, err := f.dirents.next(f.f, -1)
		if err != nil {
			return nil, experimentalsys.UnwrapOSError(err)
		}
		var mine []experimentalsys.Dirent
		for _, e := range all {
			if guest, ok := f.onlyHost[e.Name]; ok {
				mine = append(mine, experimentalsys.Dirent{Name: guest, Type: e.Type})
			}
		}
		f.dirents.pending, f.dirents.picked = mine, true
	}
	return f.dirents.take(n), 0
}

func (f *rootFile) Close() experimentalsys.Errno {
	f.count.release()
	f.count = nil
	return experimentalsys.UnwrapOSError(f.f.Close())
}

// Writing to a read-only file.
func (f *rootFile) Write([]byte) (int, experimentalsys.Errno) { return 0, experimentalsys.EBADF }
func (f *rootFile) Pwrite([]byte, int64) (int, experimentalsys.Errno) {
	return 0, experimentalsys.EBADF
}
func (f *rootFile) Truncate(int64) experimentalsys.Errno { return experimentalsys.EBADF }
func (f *rootFile) Sync() experimentalsys.Errno          { return 0 }
func (f *rootFile) Datasync() experimentalsys.Errno      { return 0 }

func eofIsOK(err error) experimentalsys.Errno {
	if err == nil || errors.Is(err, io.EOF) {
		return 0
	}
	return experimentalsys.UnwrapOSError(err)
}

// readOnlyDir presents a single-file grant's directory as read-only.
type readOnlyDir struct{ fs.FileInfo }

func (d readOnlyDir) Mode() fs.FileMode { return fs.ModeDir | 0o555 }
