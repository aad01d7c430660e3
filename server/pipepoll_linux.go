package server

import (
	"io"
	"os"
	"strconv"
	"syscall"
)

// pollableOutput returns a writer of the same pipe as out that waits in
// Go's poller, where writes can have a deadline, when out is an *os.File
// open on a pipe (as an MCP client's stdout is): the pipe is opened again
// through /proc/self/fd with O_NONBLOCK, as pollableInput does for stdin,
// with a file description of its own, so the flag is ours alone.
// Otherwise, and if the reopen fails, out is returned as it is, and its
// writes have no deadline. The returned closer closes the reopened pipe
// (nil when out was returned).
func pollableOutput(out io.Writer) (io.Writer, io.Closer) {
	f, ok := out.(*os.File)
	if !ok {
		return out, nil
	}
	p := reopenPipe(f, syscall.O_WRONLY)
	if p == nil {
		return out, nil
	}
	return p, p
}

// reopenPipe opens the pipe f is open on again, non-blocking, with mode
// (O_RDONLY or O_WRONLY), or returns nil if f is no pipe or the reopen
// fails.
func reopenPipe(f *os.File, mode int) *os.File {
	// The descriptor through Control, not Fd: Fd switches a file Go made
	// non-blocking (an embedder's os.Pipe) back to blocking.
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	orig := -1
	if rc.Control(func(fd uintptr) { orig = int(fd) }) != nil || orig < 0 {
		return nil
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(orig, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return nil
	}
	fd, err := syscall.Open("/proc/self/fd/"+strconv.Itoa(orig), mode|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	// The reopened pipe must be the same pipe: /proc/self/fd/N is a link
	// to it, but check rather than trust.
	var again syscall.Stat_t
	if syscall.Fstat(fd, &again) != nil || again.Dev != st.Dev || again.Ino != st.Ino {
		_ = syscall.Close(fd)
		return nil
	}
	return os.NewFile(uintptr(fd), f.Name())
}
