package runtime_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// recordingServer is a loopback server that answers every request with
// the path it saw, redirects /api/hop* along ?next=, and records every
// request line it received.
type recordingServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func newRecordingServer(t *testing.T) *recordingServer {
	s := &recordingServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen = append(s.seen, r.RequestURI)
		s.mu.Unlock()
		if next := r.URL.Query().Get("next"); next != "" && strings.HasPrefix(r.URL.Path, "/api/hop") {
			// Not http.Redirect: it would clean the path of a relative target.
			w.Header().Set("Location", next)
			w.WriteHeader(http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(map[string]string{"path": r.URL.Path, "auth": r.Header.Get("Authorization")})
		_, _ = w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s
}

// requests returns the request lines received since the last call.
func (s *recordingServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.seen
	s.seen = nil
	return out
}

// fetchThroughGuest runs one request through the real httpprobe guest and
// returns the guest's response payload and the host's log.
func fetchThroughGuest(t *testing.T, rawURL string, grant runtime.HTTPGrant) (abi.FetchResponse, *logSink) {
	t.Helper()
	req, err := json.Marshal(abi.FetchRequest{URL: rawURL})
	require.NoError(t, err)
	p, logs := httpProbe(t, string(req), grant, 5*time.Second)
	_, err = p.Read(t.Context(), "hp:f")
	require.NoError(t, err, "a refusal is an answer, not a fault")
	return lastFetch(t, logs), logs
}

// requireDeniedAndLogged checks the guest got a denial whose message holds
// every fragment, and the operator a warning with the same reason.
func requireDeniedAndLogged(t *testing.T, r abi.FetchResponse, logs *logSink, fragments ...string) {
	t.Helper()
	require.NotNil(t, r.Error, "want a denial, got status %d body %q", r.Status, r.Body)
	require.Equal(t, abi.FetchDenied, r.Error.Code, r.Error.Message)
	for _, f := range fragments {
		require.Contains(t, r.Error.Message, f)
	}
	var logged bool
	for _, rec := range logs.snapshot() {
		logged = logged || (rec.msg == "http_fetch refused" && rec.attrs["reason"] == r.Error.Message)
	}
	require.True(t, logged, "no operator log line for %q", r.Error.Message)
}

// TestHTTPFetchAmbiguousPaths: a guest request whose path a server could
// read as outside the granted prefix is refused before anything is sent,
// with the reason; ordinary paths and queries still go through.
func TestHTTPFetchAmbiguousPaths(t *testing.T) {
	srv := newRecordingServer(t)
	grant := runtime.HTTPGrant{Allow: []runtime.HTTPRule{{Prefix: srv.URL + "/api/"}}, AllowPrivateNetwork: true}
	for path, why := range map[string]string{
		"/api/..;/admin":                   "it has a ';'",
		"/api/x;jsessionid=1":              "it has a ';'",
		"/api/%252e%252e/admin":            "%25, an encoded '%'",
		"/api/%2e%2e/admin":                "%2e, an encoded '.'",
		"/api/%2E%2e%2Fadmin":              "%2E, an encoded '.'",
		"/api/..%2fadmin":                  "%2f, an encoded '/'",
		"/api/..\\admin":                   "%5C, an encoded '\\'",
		"/api/%5c..%5cadmin":               "%5c, an encoded '\\'",
		"/api//admin":                      "empty segment",
		"/api/.../admin":                   "dots and spaces only",
		"/api/..%20/admin":                 "dots and spaces only",
		"/api/%c0%ae%c0%ae/admin":          "does not decode to UTF-8",
		"/api/\uff0e\uff0e/admin":          "U+FF0E",
		"/api/%E2%80%A5/admin":             "U+2025",
		"/api/x%00.json":                   "control character",
		"/api/%3B/admin":                   "%3B, an encoded ';'",
		"/api/x/%2e%2e/%2e%2e/admin?q=%2e": "%2e, an encoded '.'",
	} {
		r, logs := fetchThroughGuest(t, srv.URL+path, grant)
		requireDeniedAndLogged(t, r, logs, "ambiguous path", why)
		require.Empty(t, srv.requests(), "%s reached the server", path)
	}
	r, logs := fetchThroughGuest(t, srv.URL+"/api/x?q=a b", grant)
	requireDeniedAndLogged(t, r, logs, "query has a space")
	r, logs = fetchThroughGuest(t, strings.Replace(srv.URL, "http://", "http://alice:s3cr3t@", 1)+"/api/x", grant)
	require.Equal(t, abi.FetchInvalid, r.Error.Code, "userinfo in the guest's URL")
	require.NotContains(t, r.Error.Message, "s3cr3t")
	require.NotEmpty(t, logs.withPrefix("http_fetch refused"))
	require.Empty(t, srv.requests())

	for path, served := range map[string]string{
		"/api/x":                          "/api/x",
		"/api/a%20b":                      "/api/a b",
		"/api/caf%C3%A9":                  "/api/café",
		"/api/日本/語":                       "/api/日本/語",
		"/api/dir/":                       "/api/dir/",
		"/api/.well-known/x.json":         "/api/.well-known/x.json",
		"/api/x?q=a%20b&y=1;2&z=../..":    "/api/x",
		"/api/a%2Cb%3A%40%21?next=%2e%2e": "/api/a,b:@!",
	} {
		r, _ := fetchThroughGuest(t, srv.URL+path, grant)
		require.Nil(t, r.Error, "%s: %+v", path, r.Error)
		require.Equal(t, 200, r.Status, path)
		var body map[string]string
		require.NoError(t, json.Unmarshal([]byte(r.Body), &body))
		require.Equal(t, served, body["path"], path)
		require.Len(t, srv.requests(), 1, path)
	}
}

// TestHTTPFetchRedirectChain: a redirect that brings userinfo or an
// ambiguous path, at the second or third request of a chain, is refused
// like the guest's own request would be: the hop is never sent, and the
// guest and the operator are told which hop and why.
func TestHTTPFetchRedirectChain(t *testing.T) {
	srv := newRecordingServer(t)
	grant := runtime.HTTPGrant{Allow: []runtime.HTTPRule{{Prefix: srv.URL + "/api/"}}, AllowPrivateNetwork: true}
	withUser := strings.Replace(srv.URL, "http://", "http://alice:s3cr3t@", 1)
	for target, why := range map[string]string{
		withUser + "/api/ok":          "userinfo",
		"/api/..;/admin":              "it has a ';'",
		"/api/%252e%252e/admin":       "an encoded '%'",
		"/api/%2e%2e/admin":           "an encoded '.'",
		"/api/x%5c..%5c..%5cadmin":    "an encoded '\\'",
		"/api//admin":                 "empty segment",
		srv.URL + "/api/...;/admin":   "it has a ';'",
		"/api/%EF%BC%8F..%EF%BC%8F..": "U+FF0F",
	} {
		for _, hops := range []int{2, 3} {
			// hop1 redirects to target (the 2nd request), or to hop2, which
			// redirects to target (the 3rd).
			next := url.QueryEscape(target)
			if hops == 3 {
				next = url.QueryEscape("/api/hop2?next=" + next)
			}
			r, logs := fetchThroughGuest(t, srv.URL+"/api/hop1?next="+next, grant)
			requireDeniedAndLogged(t, r, logs, "refused: redirect to GET http://127.0.0.1:", why)
			require.NotContains(t, r.Error.Message, "s3cr3t", "the message repeats no credentials")
			require.NotContains(t, r.Error.Message, "alice", "the message repeats no credentials")
			sent := srv.requests()
			require.Len(t, sent, hops-1, "%s at hop %d: only the hops before it are sent: %q", target, hops, sent)
		}
	}

	// A chain of good hops is followed to its end.
	next := url.QueryEscape("/api/hop2?next=" + url.QueryEscape("/api/end%20point"))
	r, _ := fetchThroughGuest(t, srv.URL+"/api/hop1?next="+next, grant)
	require.Nil(t, r.Error)
	require.JSONEq(t, `{"path":"/api/end point","auth":""}`, r.Body)
	require.Len(t, srv.requests(), 3)
}
