package server

import (
	"errors"
	"mime"
	"net/http"
	"os"
	"sync"
	"time"
)

// errResponseDone is returned by writes after the handler has returned.
var errResponseDone = errors.New("response already finished")

// keepAliveComment is an SSE comment line: clients ignore it, proxies see
// traffic on an otherwise idle stream.
const keepAliveComment = ": keepalive\n\n"

// streamWriter wraps the ResponseWriter of one /mcp request. On an event
// stream it sets X-Accel-Buffering: no (so that nginx-like proxies do not
// buffer it), flushes every write (go-sdk flushes each event), and writes
// a keep-alive comment whenever the stream has been idle for interval. It
// serializes writes, since go-sdk writes events from other goroutines, and
// refuses writes once the handler has returned.
//
// Every write to the connection has a deadline: the client must take each
// piece of at most writeChunk bytes within the write timeout. A client that
// does not (it stopped reading, and the socket buffers are full) is a
// laggard: the write fails, later writes fail at once, and abort ends the
// request, so that its stream closes and its connection with it. Its lock
// is its own: nothing another client waits for is held across a write.
type streamWriter struct {
	http.ResponseWriter
	interval     time.Duration
	writeTimeout time.Duration
	rc           *http.ResponseController
	mark         *answerMark       // a 400 for an error the server served goes out as 200 (http_status.go)
	abort        func()            // ends the request, once a write failed
	lagging      func()            // told once when a write misses its deadline
	header       func(http.Header) // changes the headers before they go out (nil: none)

	mu        sync.Mutex
	status    int
	written   int64
	lastWrite time.Time
	done      bool
	failed    bool          // a write failed: the stream is over
	local     string        // the session id go-sdk set, before header changed it
	stop      chan struct{} // non-nil once keep-alives run
	wg        sync.WaitGroup
}

// localSession is the session id go-sdk answered with, before the
// header hook changed it, "" for none.
func (w *streamWriter) localSession() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.local
}

// writeChunk is the most a write hands the connection under one deadline.
const writeChunk = 64 << 10

func newStreamWriter(w http.ResponseWriter, interval, writeTimeout time.Duration) *streamWriter {
	return &streamWriter{ResponseWriter: w, interval: interval, writeTimeout: writeTimeout,
		rc: http.NewResponseController(w), abort: func() {}, lagging: func() {}}
}

// deadline gives the next write to the connection the write timeout. The
// caller holds w.mu.
func (w *streamWriter) deadline() {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.writeTimeout)) // ErrNotSupported: a test recorder
}

// fail ends the stream after a failed write. The caller holds w.mu.
func (w *streamWriter) fail(err error) error {
	if !w.failed {
		w.failed = true
		if errors.Is(err, os.ErrDeadlineExceeded) {
			w.lagging()
		}
		w.abort()
	}
	return err
}

func (w *streamWriter) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeHeaderLocked(code)
}

func (w *streamWriter) writeHeaderLocked(code int) {
	if w.status != 0 || w.done {
		return
	}
	if code == http.StatusBadRequest && w.mark != nil && w.mark.served.Load() {
		code = http.StatusOK
	}
	w.status = code
	if w.header != nil {
		w.local = w.Header().Get(headerSessionID)
		w.header(w.Header()) // a fleet's sealed session id (fleet_http.go)
	}
	if isEventStream(w.Header().Get("Content-Type")) {
		w.Header().Set("X-Accel-Buffering", "no")
		w.stop = make(chan struct{})
		w.wg.Add(1)
		go w.keepAlive()
	}
	w.lastWrite = time.Now()
	w.ResponseWriter.WriteHeader(code)
}

func (w *streamWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return 0, errResponseDone
	}
	w.writeHeaderLocked(http.StatusOK)
	n := 0
	for n < len(b) {
		w.deadline()
		m, err := w.ResponseWriter.Write(b[n : n+min(len(b)-n, writeChunk)])
		n += m
		w.written += int64(m)
		if err != nil {
			return n, w.fail(err)
		}
	}
	w.lastWrite = time.Now()
	return n, nil
}

// FlushError is what http.ResponseController.Flush calls.
func (w *streamWriter) FlushError() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return errResponseDone
	}
	w.writeHeaderLocked(http.StatusOK)
	w.deadline()
	if err := w.rc.Flush(); err != nil {
		return w.fail(err)
	}
	return nil
}

// Flush implements http.Flusher.
func (w *streamWriter) Flush() { _ = w.FlushError() }

// Unwrap lets http.ResponseController reach the connection.
func (w *streamWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// keepAlive writes a comment whenever the stream has been idle for a whole
// interval, until finish.
func (w *streamWriter) keepAlive() {
	defer w.wg.Done()
	t := time.NewTicker(w.interval / 2)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case now := <-t.C:
			w.mu.Lock()
			if !w.done && !w.failed && now.Sub(w.lastWrite) >= w.interval {
				w.deadline()
				_, err := w.ResponseWriter.Write([]byte(keepAliveComment))
				if err == nil {
					err = w.rc.Flush()
				}
				if err != nil {
					_ = w.fail(err)
				}
				w.lastWrite = now
			}
			w.mu.Unlock()
		}
	}
}

// finish stops keep-alives and refuses further writes. It returns the
// status sent (200 if the handler wrote nothing) and the body bytes.
// cancel ends the stream of a request its client cancelled: nothing more
// is written to it (the receiver of a cancellation does not answer the
// request, however its handler ends), and the request's context ends.
func (w *streamWriter) cancel() {
	w.mu.Lock()
	w.done = true // finish still stops the keep-alives
	w.mu.Unlock()
	w.abort()
}

func (w *streamWriter) finish() (status int, written int64) {
	w.mu.Lock()
	w.done = true
	if w.stop != nil {
		close(w.stop)
	}
	status, written = w.status, w.written
	w.mu.Unlock()
	w.wg.Wait()
	if status == 0 {
		status = http.StatusOK
	}
	return status, written
}

func isEventStream(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/event-stream"
}
