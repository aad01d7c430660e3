package server

import (
	"errors"
	"mime"
	"net/http"
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
type streamWriter struct {
	http.ResponseWriter
	interval time.Duration
	mark     *answerMark // a 400 for an error the server served goes out as 200 (http_status.go)

	mu        sync.Mutex
	status    int
	written   int64
	lastWrite time.Time
	done      bool
	stop      chan struct{} // non-nil once keep-alives run
	wg        sync.WaitGroup
}

func newStreamWriter(w http.ResponseWriter, interval time.Duration) *streamWriter {
	return &streamWriter{ResponseWriter: w, interval: interval}
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
	n, err := w.ResponseWriter.Write(b)
	w.written += int64(n)
	w.lastWrite = time.Now()
	return n, err
}

// FlushError is what http.ResponseController.Flush calls.
func (w *streamWriter) FlushError() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return errResponseDone
	}
	w.writeHeaderLocked(http.StatusOK)
	return http.NewResponseController(w.ResponseWriter).Flush()
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
			if !w.done && now.Sub(w.lastWrite) >= w.interval {
				_, _ = w.ResponseWriter.Write([]byte(keepAliveComment))
				_ = http.NewResponseController(w.ResponseWriter).Flush()
				w.lastWrite = now
			}
			w.mu.Unlock()
		}
	}
}

// finish stops keep-alives and refuses further writes. It returns the
// status sent (200 if the handler wrote nothing) and the body bytes.
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
