package server

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStreamWriter_keepAlive: an idle event stream gets keep-alive
// comments and X-Accel-Buffering: no; a JSON response gets neither.
func TestStreamWriter_keepAlive(t *testing.T) {
	release := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := newStreamWriter(w, 40*time.Millisecond, time.Minute)
		defer sw.finish()
		if r.URL.Path == "/json" {
			sw.Header().Set("Content-Type", "application/json")
			_, _ = sw.Write([]byte(`{}`))
			return
		}
		sw.Header().Set("Content-Type", "text/event-stream")
		sw.WriteHeader(http.StatusOK)
		sw.Flush()
		<-release
		_, _ = sw.Write([]byte("event: message\ndata: {}\n\n"))
	}))
	defer ts.Close()

	resp, err := http.Get(ts.URL + "/sse")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "no", resp.Header.Get("X-Accel-Buffering"))
	r := bufio.NewReader(resp.Body)
	for range 2 {
		line, err := r.ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, ": keepalive\n", line)
		_, err = r.ReadString('\n')
		require.NoError(t, err)
	}
	close(release)
	rest, err := readAll(r)
	require.NoError(t, err)
	require.Contains(t, rest, "data: {}\n\n", "events still flow")

	resp2, err := http.Get(ts.URL + "/json")
	require.NoError(t, err)
	defer resp2.Body.Close()
	require.Empty(t, resp2.Header.Get("X-Accel-Buffering"))
}

func readAll(r *bufio.Reader) (string, error) {
	var b strings.Builder
	_, err := r.WriteTo(&b)
	return b.String(), err
}

// TestStreamWriter_refusesLateWrites: once the handler returned, a write
// from a straggling goroutine fails instead of touching the connection.
func TestStreamWriter_refusesLateWrites(t *testing.T) {
	rec := httptest.NewRecorder()
	sw := newStreamWriter(rec, time.Second, time.Minute)
	_, err := sw.Write([]byte("a"))
	require.NoError(t, err)
	status, n := sw.finish()
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, int64(1), n)
	_, err = sw.Write([]byte("b"))
	require.ErrorIs(t, err, errResponseDone)
	require.Equal(t, "a", rec.Body.String())
}
