package metrics

import (
	"net/http"
	"strconv"
	"strings"
)

// Wrap counts next's HTTP responses by status code, and counts the event
// streams it opens in answer to GET (the legacy server-to-client stream) as
// open streams of t until the handler returns. The wrapped ResponseWriter
// keeps http.Flusher and Unwrap, so streaming is not buffered.
func (t *Transport) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &recorder{ResponseWriter: w, t: t, get: r.Method == http.MethodGet}
		defer rw.done()
		next.ServeHTTP(rw, r)
	})
}

// recorder watches the status and content type of one response.
type recorder struct {
	http.ResponseWriter
	t      *Transport
	get    bool
	status int
	stream bool
}

func (rw *recorder) WriteHeader(code int) {
	if rw.status == 0 && code >= 200 {
		rw.status = code
		if rw.get && code == http.StatusOK && strings.HasPrefix(rw.Header().Get("Content-Type"), "text/event-stream") {
			rw.stream = true
			rw.t.Stream(1)
		}
	}
	rw.ResponseWriter.WriteHeader(code)
}

func (rw *recorder) Write(b []byte) (int, error) {
	if rw.status == 0 {
		rw.WriteHeader(http.StatusOK)
	}
	return rw.ResponseWriter.Write(b)
}

// Flush sends buffered data to the client, if the underlying writer can.
func (rw *recorder) Flush() {
	if rw.status == 0 {
		rw.WriteHeader(http.StatusOK)
	}
	if f, ok := rw.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (rw *recorder) Unwrap() http.ResponseWriter { return rw.ResponseWriter }

// done counts the response once the handler has returned.
func (rw *recorder) done() {
	if rw.stream {
		rw.t.Stream(-1)
	}
	status := rw.status
	if status == 0 {
		status = http.StatusOK // net/http sends 200 for a handler that wrote nothing
	}
	rw.t.s.httpResponses.With(strconv.Itoa(status)).Inc()
}
