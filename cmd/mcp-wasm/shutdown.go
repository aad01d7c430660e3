package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// defaultShutdownTimeout is how long the process may take to stop after
// SIGINT or SIGTERM (serve's --shutdown-timeout): under the 30 s that
// Kubernetes and most supervisors wait before they kill.
const defaultShutdownTimeout = 10 * time.Second

// shutdown turns SIGINT and SIGTERM into the end of run's context and
// bounds what follows: once the bound has passed since the first signal
// (or since serve began to close after its input ended), the process
// exits with status 1 whatever is still running (a call that does not
// end, a close that waits for one); a second signal exits at once. So the
// process always stops, and stopping never depends on a guest.
type shutdown struct {
	bound  atomic.Int64 // a time.Duration
	exit   func(int)
	stderr io.Writer
	sigs   chan os.Signal
	cancel context.CancelFunc

	closing  chan struct{} // closed by arm
	armOnce  sync.Once
	done     chan struct{} // closed by stop
	stopOnce sync.Once
	wg       sync.WaitGroup
}

type shutdownKey struct{}

// startShutdown starts watching for SIGINT and SIGTERM. The returned
// context ends at the first signal and carries the shutdown (for serve,
// shutdownFrom); stop ends the watch.
func startShutdown(parent context.Context, stderr io.Writer, exit func(int)) (context.Context, *shutdown) {
	ctx, cancel := context.WithCancel(parent)
	s := &shutdown{exit: exit, stderr: stderr, sigs: make(chan os.Signal, 2), cancel: cancel,
		closing: make(chan struct{}), done: make(chan struct{})}
	s.bound.Store(int64(defaultShutdownTimeout))
	signal.Notify(s.sigs, os.Interrupt, syscall.SIGTERM)
	s.wg.Go(s.watch)
	return context.WithValue(ctx, shutdownKey{}, s), s
}

// shutdownFrom returns the shutdown of ctx, or nil (run called by a test).
func shutdownFrom(ctx context.Context) *shutdown {
	s, _ := ctx.Value(shutdownKey{}).(*shutdown)
	return s
}

// setBound sets how long stopping may take; nil-safe.
func (s *shutdown) setBound(d time.Duration) {
	if s != nil {
		s.bound.Store(int64(d))
	}
}

// arm starts the bound without a signal: serve's input ended and it is
// closing. nil-safe; only the first arm or signal starts the clock.
func (s *shutdown) arm() {
	if s != nil {
		s.armOnce.Do(func() { close(s.closing) })
	}
}

// stop ends the watch (run returned: the process exits anyway).
func (s *shutdown) stop() {
	s.stopOnce.Do(func() { close(s.done) })
	signal.Stop(s.sigs)
	s.wg.Wait()
}

func (s *shutdown) watch() {
	why := "the end of input"
	select {
	case sig := <-s.sigs:
		s.cancel()
		why = sig.String()
	case <-s.closing:
	case <-s.done:
		return
	}
	bound := time.Duration(s.bound.Load())
	timer := time.NewTimer(bound)
	defer timer.Stop()
	select {
	case sig := <-s.sigs:
		fmt.Fprintf(s.stderr, "mcp-wasm: second signal (%s): exiting now\n", sig)
		s.exit(128 + int(sig.(syscall.Signal)))
	case <-timer.C:
		fmt.Fprintf(s.stderr, "mcp-wasm: still stopping %s after %s (a call in flight did not end): exiting anyway; --shutdown-timeout sets this bound\n", bound, why)
		s.exit(1)
	case <-s.done:
	}
}
