package metrics

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

func TestWrapCountsResponsesAndGetStreams(t *testing.T) {
	s := NewSet()
	tr := s.Transport("http")
	opened := make(chan struct{})
	release := make(chan struct{})
	h := tr.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/stream":
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(": ping\n\n"))
			http.NewResponseController(w).Flush() // through Unwrap
			close(opened)
			<-release
		case "/forbidden":
			http.Error(w, "no", http.StatusForbidden)
		default:
			_, _ = w.Write([]byte("ok"))
		}
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()

	for _, p := range []string{"/", "/forbidden", "/forbidden"} {
		resp, err := http.Get(srv.URL + p)
		require.NoError(t, err)
		resp.Body.Close()
	}
	resp, err := http.Get(srv.URL + "/stream")
	require.NoError(t, err)
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, ": ping\n", line, "the stream is flushed, not buffered")
	<-opened
	_, e := scrape(t, s.Registry())
	v, _ := e.Value("mcpwasm_transport_streams", "transport", "http")
	require.Equal(t, 1.0, v)

	close(release)
	resp.Body.Close()
	require.Eventually(t, func() bool {
		_, e := scrape(t, s.Registry())
		v, _ := e.Value("mcpwasm_transport_streams", "transport", "http")
		ok, _ := e.Value("mcpwasm_http_responses_total", "code", "200")
		return v == 0 && ok == 2
	}, timeout, tick)
	_, e = scrape(t, s.Registry())
	v, _ = e.Value("mcpwasm_http_responses_total", "code", "403")
	require.Equal(t, 2.0, v)
}

func TestWrapDoesNotCountPostEventStreams(t *testing.T) {
	s := NewSet()
	h := s.Transport("http").Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("data: {}\n\n"))
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader("{}")))
	_, e := scrape(t, s.Registry())
	_, ok := e.Value("mcpwasm_transport_streams", "transport", "http")
	require.False(t, ok, "a POST answered as SSE is a response, not a long-lived stream")
	v, _ := e.Value("mcpwasm_http_responses_total", "code", "200")
	require.Equal(t, 1.0, v)
}

const (
	timeout = testkit.Wait
	tick    = 10 * time.Millisecond
)
