//go:build linux

package dirwatch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Event masks. A tree directory reports changes of its entries and of
// itself; a single-file root is watched through its parent directory
// (which sees it replaced) and by itself (which sees it written through a
// symbolic link).
const (
	maskEntries = syscall.IN_MODIFY | syscall.IN_ATTRIB | syscall.IN_CLOSE_WRITE | syscall.IN_CREATE |
		syscall.IN_DELETE | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO | syscall.IN_EXCL_UNLINK
	maskDir  = maskEntries | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF | syscall.IN_ONLYDIR
	maskFile = syscall.IN_MODIFY | syscall.IN_ATTRIB | syscall.IN_CLOSE_WRITE | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF
)

// inotify is the Linux backend. Watches are changed only by the goroutine
// reading events (and by the constructor before it starts).
type inotify struct {
	f     *os.File
	rc    syscall.RawConn
	pend  *pending
	max   int
	log   *slog.Logger
	done  chan struct{}
	warns map[string]bool

	watches map[int32]*watch
	byPath  map[string]int32
}

// watch is what one watch descriptor stands for.
type watch struct {
	path  string
	tree  bool            // a directory of a watched tree: its new subdirectories are watched too
	names map[string]bool // a single file's parent: only these entries count
	file  bool            // a single-file root itself
}

func newInotify(roots []root, cfg Config, pend *pending) (*inotify, error) {
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("inotify_init1: %w", err)
	}
	f := os.NewFile(uintptr(fd), "inotify") // non-blocking: reads park in the runtime poller, Close wakes them
	rc, err := f.SyscallConn()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	n := &inotify{f: f, rc: rc, pend: pend, max: cfg.maxWatches, log: cfg.log, done: make(chan struct{}),
		warns: map[string]bool{}, watches: map[int32]*watch{}, byPath: map[string]int32{}}
	for _, r := range roots {
		if err := n.addRoot(r); err != nil {
			_ = f.Close()
			return nil, err
		}
	}
	go n.run()
	return n, nil
}

func (n *inotify) addRoot(r root) error {
	if r.file {
		if err := n.add(filepath.Dir(r.path), maskDir, watch{names: map[string]bool{filepath.Base(r.path): true}}); err != nil {
			return err
		}
		return n.add(r.path, maskFile, watch{file: true})
	}
	return n.addTree(r.path, true)
}

// addTree watches dir and the directories below it, without following
// symbolic links (the root itself may be one).
func (n *inotify) addTree(dir string, isRoot bool) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && isRoot {
				return err
			}
			return nil // vanished or unreadable: nothing to watch
		}
		if !d.IsDir() {
			return nil
		}
		mask := uint32(maskDir)
		if p != dir || !isRoot {
			mask |= syscall.IN_DONT_FOLLOW
		}
		err = n.add(p, mask, watch{tree: true})
		switch {
		case err != nil && p == dir && isRoot:
			return err // the caller falls back to polling
		case errors.Is(err, errTooManyWatches):
			return filepath.SkipAll
		}
		return nil
	})
}

var errTooManyWatches = errors.New("too many watches")

// add creates or extends the watch on path.
func (n *inotify) add(path string, mask uint32, w watch) error {
	if len(n.watches) >= n.max {
		n.warnOnce("watch limit", "not watching every granted directory: the watch limit is reached", "limit", n.max)
		return errTooManyWatches
	}
	var wd int
	var err error
	if cerr := n.rc.Control(func(fd uintptr) { wd, err = syscall.InotifyAddWatch(int(fd), path, mask) }); cerr != nil {
		return cerr
	}
	if err != nil {
		if errors.Is(err, syscall.ENOSPC) {
			n.warnOnce("ENOSPC", "not watching every granted directory: raise fs.inotify.max_user_watches", "path", path)
			return errTooManyWatches
		}
		return fmt.Errorf("watch %s: %w", path, err)
	}
	id := int32(wd)
	if old := n.watches[id]; old != nil {
		w = merge(*old, w)
	}
	w.path = path
	n.watches[id] = &w
	n.byPath[path] = id
	return nil
}

// merge combines two uses of one directory (a tree directory that is also
// a single file's parent sees every entry).
func merge(a, b watch) watch {
	out := watch{tree: a.tree || b.tree, file: a.file || b.file}
	if !out.tree && (a.names != nil || b.names != nil) {
		out.names = map[string]bool{}
		for k := range a.names {
			out.names[k] = true
		}
		for k := range b.names {
			out.names[k] = true
		}
	}
	return out
}

func (n *inotify) warnOnce(key, msg string, args ...any) {
	if !n.warns[key] {
		n.warns[key] = true
		n.log.Warn(msg, args...)
	}
}

func (n *inotify) run() {
	defer close(n.done)
	buf := make([]byte, 64<<10)
	for {
		k, err := n.f.Read(buf)
		if err != nil {
			return // closed
		}
		n.parse(buf[:k])
	}
}

// parse decodes a batch of struct inotify_event {wd, mask, cookie, len,
// name[len]}.
func (n *inotify) parse(b []byte) {
	for len(b) >= syscall.SizeofInotifyEvent {
		wd := int32(binary.NativeEndian.Uint32(b[0:4]))
		mask := binary.NativeEndian.Uint32(b[4:8])
		size := int(binary.NativeEndian.Uint32(b[12:16]))
		b = b[syscall.SizeofInotifyEvent:]
		if size > len(b) {
			return
		}
		name := strings.TrimRight(string(b[:size]), "\x00")
		b = b[size:]
		n.handle(wd, mask, name)
	}
}

func (n *inotify) handle(wd int32, mask uint32, name string) {
	if mask&syscall.IN_Q_OVERFLOW != 0 {
		n.pend.overflowed()
		return
	}
	w := n.watches[wd]
	if w == nil {
		return
	}
	if mask&syscall.IN_IGNORED != 0 {
		delete(n.watches, wd)
		if n.byPath[w.path] == wd {
			delete(n.byPath, w.path)
		}
		return
	}
	p := w.path
	if name != "" {
		if name == "." || name == ".." || strings.ContainsRune(name, '/') {
			return // not an entry name: the kernel never sends one
		}
		if w.names != nil && !w.tree && !w.names[name] {
			return
		}
		p = filepath.Join(w.path, name)
	}
	n.follow(w, p, mask)
	n.pend.add(p)
}

// follow keeps the watches in step with the tree: a directory created or
// moved in is watched, one moved out is forgotten, and a single file
// replaced by another is watched anew.
func (n *inotify) follow(w *watch, p string, mask uint32) {
	arrived := mask&(syscall.IN_CREATE|syscall.IN_MOVED_TO) != 0
	switch {
	case w.tree && mask&syscall.IN_ISDIR != 0 && arrived:
		_ = n.addTree(p, false)
	case w.tree && mask&syscall.IN_ISDIR != 0 && mask&syscall.IN_MOVED_FROM != 0:
		n.forget(p)
	case w.names != nil && w.names[filepath.Base(p)] && arrived:
		_ = n.add(p, maskFile, watch{file: true})
	}
}

// forget drops the watches at and below dir, whose paths are stale.
func (n *inotify) forget(dir string) {
	for p, wd := range n.byPath {
		if p == dir || strings.HasPrefix(p, dir+string(filepath.Separator)) {
			_ = n.rc.Control(func(fd uintptr) { _, _ = syscall.InotifyRmWatch(int(fd), uint32(wd)) })
			delete(n.byPath, p)
			delete(n.watches, wd)
		}
	}
}

func (n *inotify) close() {
	_ = n.f.Close()
	<-n.done
}
