package server

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// blockingPipe is a pipe as a parent process hands it to us: blocking
// descriptors, the read end wrapped by os.NewFile as os.Stdin is.
func blockingPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	var fds [2]int
	require.NoError(t, syscall.Pipe2(fds[:], syscall.O_CLOEXEC))
	r, w = os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "client")
	t.Cleanup(func() { _ = r.Close(); _ = w.Close() })
	return r, w
}

func nonblocking(t *testing.T, fd uintptr) bool {
	t.Helper()
	flags, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	require.Zero(t, e)
	return flags&syscall.O_NONBLOCK != 0
}

// TestPollableInput_ownDescription: stdin's pipe is read through a
// description of our own, non-blocking, while the descriptor the parent
// handed us stays blocking (a shell or client sharing it sees no change),
// and it reads the same pipe.
func TestPollableInput_ownDescription(t *testing.T) {
	r, w := blockingPipe(t)
	in, closer := pollableInput(r)
	require.NotNil(t, closer, "a pipe is reopened")
	defer closer.Close()
	f, ok := in.(*os.File)
	require.True(t, ok)
	require.NotEqual(t, r.Fd(), f.Fd())
	require.False(t, nonblocking(t, r.Fd()), "the parent's description was changed")
	require.True(t, nonblocking(t, f.Fd()))
	_, err := w.Write([]byte("hello\n"))
	require.NoError(t, err)
	line, err := bufio.NewReader(in).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "hello\n", line)
}

// TestPollableInput_nonblockingStays: a pipe Go opened itself (an
// embedder's os.Pipe handed to ServeStdio) is non-blocking and in the
// poller; looking up its descriptor must not switch it to blocking, as
// os.File.Fd does for such files.
func TestPollableInput_nonblockingStays(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer w.Close()
	defer r.Close()
	rc, err := r.SyscallConn()
	require.NoError(t, err)
	var rfd uintptr
	require.NoError(t, rc.Control(func(fd uintptr) { rfd = fd }))
	require.True(t, nonblocking(t, rfd))
	in, closer := pollableInput(r)
	require.NotNil(t, closer)
	defer closer.Close()
	require.NotSame(t, r, in)
	require.True(t, nonblocking(t, rfd), "the caller's pipe was switched to blocking")
}

// TestPollableInput_notAPipe: a regular file, or a reader that is not a
// file, is read as it is.
func TestPollableInput_notAPipe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "input")
	require.NoError(t, os.WriteFile(p, []byte("x\n"), 0o600))
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	in, closer := pollableInput(f)
	require.Nil(t, closer)
	require.Same(t, f, in)
}

// TestServer_ServeStdio_pipe: a session over a real pipe, read through
// the reopened description, is served; a stop ends ServeStdio while the
// client is still connected and silent.
func TestServer_ServeStdio_pipe(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(slowProvider(0)).WithCallTimeout(testkit.Patient))
	r, w := blockingPipe(t)
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	defer outR.Close()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, r, outW); _ = outW.Close() }()
	_, err = w.Write([]byte(readLine(1, "slow:///a")))
	require.NoError(t, err)
	line, err := bufio.NewReader(outR).ReadString('\n')
	require.NoError(t, err)
	require.Contains(t, line, `"id":1,"result"`)
	cancel() // the client stays connected and says nothing more
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(testkit.Wait):
		t.Fatal("ServeStdio did not return after its context was cancelled")
	}
}
