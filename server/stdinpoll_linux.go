package server

import (
	"io"
	"os"
	"syscall"
)

// pollableInput returns a reader of the same pipe as in that waits in Go's
// network poller instead of in a blocking read(2), where it can: in is an
// *os.File open on a pipe (as an MCP client's stdin is), which is opened
// again through /proc/self/fd with O_NONBLOCK. A pipe opened by path gets
// a file description of its own, so the non-blocking flag is ours alone:
// the process that handed us the pipe, and any other holder of fd 0, still
// see it blocking. Otherwise, and if the reopen fails (no /proc, another
// owner's pipe), in is returned as it is.
//
// Why: a goroutine blocked in read(2) holds its thread in a system call,
// and while any call is in flight the Go runtime's monitor (sysmon) wakes
// every 20 µs to hand that thread's processor to other goroutines; on a
// busy stdio connection that polling cost about a fifth of the server's
// CPU (docs/performance.md). A read parked in the poller costs nothing
// while it waits. The returned closer closes the reopened pipe (nil when
// in was returned).
func pollableInput(in io.Reader) (io.Reader, io.Closer) {
	f, ok := in.(*os.File)
	if !ok {
		return in, nil
	}
	p := reopenPipe(f, syscall.O_RDONLY)
	if p == nil {
		return in, nil
	}
	return p, p
}
