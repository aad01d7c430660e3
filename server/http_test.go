package server

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// serveHTTP serves s with cfg on an httptest server (loopback) and returns
// the /mcp URL.
func serveHTTP(t testing.TB, s *Server, cfg HTTPConfig) string {
	t.Helper()
	h, err := s.newHTTPHandler(cfg)
	require.NoError(t, err)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		h.endStreams()
		ts.Close()
	})
	return ts.URL + MCPPath
}

// connectHTTP connects a go-sdk client over Streamable HTTP speaking
// version; notes collects the server notifications it receives.
func connectHTTP(t testing.TB, url, version string, hc *http.Client, notes chan<- string) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
	if notes != nil {
		opts.ProgressNotificationHandler = func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			notes <- r.Params.Message
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, opts)
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}
	cs, err := client.Connect(t.Context(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// rawPost sends one JSON-RPC body to url with the Streamable HTTP headers
// plus hdr, and returns the status, headers and body.
func rawPost(t testing.TB, url string, hdr map[string]string, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return do(t, req)
}

func do(t testing.TB, req *http.Request) (int, http.Header, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, string(b)
}

// modernHeaders are the headers of a 2026-07-28 request for method/name.
func modernHeaders(method, name string) map[string]string {
	h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

func modernRead(uri string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"` + uri + `",` + stdioMeta + `}}`
}

// TestHTTP_legacySession: a 2025-11-25 client gets a session, lists and
// reads through it, and receives server notifications on its GET stream.
func TestHTTP_legacySession(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	notes := make(chan string, 4)
	cs := connectHTTP(t, serveHTTP(t, s, NewHTTPConfig()), "2025-11-25", nil, notes)
	require.NotEmpty(t, cs.ID(), "a legacy client gets an Mcp-Session-Id")

	uris, _ := listAll(t, cs)
	require.Contains(t, uris, "notes:///hello")
	res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///hello"})
	require.NoError(t, err)
	require.Equal(t, "Hello, world", res.Contents[0].Text)
	_, err = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///missing"})
	require.Equal(t, int64(codeResourceNotFound), rpcError(t, err).Code, "legacy not found is -32002")

	// A notification sent outside any request goes to the GET stream.
	require.Eventually(t, func() bool {
		for ss := range s.mcp.Sessions() {
			if ss.ID() == cs.ID() {
				_ = ss.NotifyProgress(context.Background(), &mcp.ProgressNotificationParams{ProgressToken: "t", Progress: 1, Message: "pushed"})
				return true
			}
		}
		return false
	}, testkit.Wait, 10*time.Millisecond)
	select {
	case msg := <-notes:
		require.Equal(t, "pushed", msg)
	case <-time.After(testkit.Wait):
		t.Fatal("no notification on the GET stream")
	}
}

// TestHTTP_modern: a 2026-07-28 client works without a session on the same
// endpoint, and gets 2026-07-28 shapes.
func TestHTTP_modern(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	url := serveHTTP(t, s, NewHTTPConfig())
	cs := connectHTTP(t, url, "2026-07-28", nil, nil)
	require.Empty(t, cs.ID(), "no session on 2026-07-28")
	uris, _ := listAll(t, cs)
	require.Contains(t, uris, "notes:///hello")
	res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///logo.png"})
	require.NoError(t, err)
	require.Equal(t, pngBytes, res.Contents[0].Blob)
	_, err = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///missing"})
	require.Equal(t, int64(-32602), rpcError(t, err).Code, "2026-07-28 not found is -32602")

	status, _, body := rawPost(t, url, modernHeaders("resources/read", "notes:///hello"), modernRead("notes:///hello"))
	require.Equal(t, http.StatusOK, status, body)
	require.Contains(t, body, `"ttlMs":0`)
	require.Contains(t, body, `"resultType":"complete"`)
}

// TestHTTP_bothErasAtOnce: a legacy session and modern requests share the
// endpoint and the server.
func TestHTTP_bothErasAtOnce(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	url := serveHTTP(t, s, NewHTTPConfig())
	legacy := connectHTTP(t, url, "2025-06-18", nil, nil)
	modern := connectHTTP(t, url, "2026-07-28", nil, nil)
	for _, cs := range []*mcp.ClientSession{legacy, modern, legacy} {
		res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///items/101"})
		require.NoError(t, err)
		require.Contains(t, res.Contents[0].Text, "101")
	}
}

func TestHTTP_healthAndReady(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	ready := &fakeHealth{}
	url := strings.TrimSuffix(serveHTTP(t, s, NewHTTPConfig().WithHealth(ready)), MCPPath)
	get := func(path string) int {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url+path, nil)
		require.NoError(t, err)
		// On loopback, probes are Host-checked (TestHTTP_probesHostChecked);
		// a pod-IP Host is answered on other addresses only.
		req.Host = "localhost:8080"
		status, _, _ := do(t, req)
		return status
	}
	require.Equal(t, http.StatusOK, get(HealthzPath))
	require.Equal(t, http.StatusServiceUnavailable, get(ReadyzPath))
	ready.ok = true
	require.Equal(t, http.StatusOK, get(ReadyzPath))
	require.Equal(t, http.StatusNotFound, get("/elsewhere"))
}

type fakeHealth struct{ ok bool }

func (f *fakeHealth) Ready() bool { return f.ok }

// TestServeStreamable_drainsInFlight: on shutdown a request in flight is
// answered, the event streams that never end by themselves (a legacy GET
// stream, a subscriptions/listen) are ended, and ServeStreamable returns
// nil.
func TestServeStreamable_drainsInFlight(t *testing.T) {
	entered := make(chan struct{})
	s := newServer(t, NewConfig().WithProviders(slowProviderEntered(300*time.Millisecond, entered)).WithCallTimeout(testkit.Patient))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.ServeStreamable(ctx, ln, NewHTTPConfig().WithShutdownGrace(testkit.Wait)) }()
	url := "http://" + ln.Addr().String() + MCPPath

	getStream := openStream(t, url, http.MethodGet, legacySession(t, url), "")
	listen := openStream(t, url, http.MethodPost, nil,
		`{"jsonrpc":"2.0","id":9,"method":"subscriptions/listen","params":{"notifications":{"resourcesListChanged":true},`+stdioMeta+`}}`)
	type answer struct {
		status int
		body   string
	}
	answered := make(chan answer, 1)
	go func() {
		status, _, body := rawPost(t, url, modernHeaders("resources/read", "slow:///a"), modernRead("slow:///a"))
		answered <- answer{status, body}
	}()
	<-entered // the read is in the provider
	stop()
	a := <-answered
	require.Equal(t, http.StatusOK, a.status)
	require.Contains(t, a.body, `"text":"a"`)
	_, err = io.Copy(io.Discard, getStream)
	require.NoError(t, err, "the GET stream ends cleanly")
	rest, err := io.ReadAll(listen)
	require.NoError(t, err, "the listen ends cleanly")
	require.Contains(t, string(rest), `"id":9,"result":{"resultType":"complete"`, "the listen gets its final result")
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(testkit.Wait):
		t.Fatal("ServeStreamable did not return")
	}
}

// legacySession initializes a 2025-11-25 session over raw HTTP and returns
// the headers that address it.
func legacySession(t testing.TB, url string) map[string]string {
	t.Helper()
	status, hdr, body := rawPost(t, url, nil,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	require.Equal(t, http.StatusOK, status, body)
	session := map[string]string{"Mcp-Session-Id": hdr.Get("Mcp-Session-Id"), "MCP-Protocol-Version": "2025-11-25"}
	status, _, body = rawPost(t, url, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(t, http.StatusAccepted, status, body)
	return session
}

// openStream opens an event stream (a GET, or a POST of body with modern
// headers when hdr is nil), waits for its first bytes and returns its body.
func openStream(t testing.TB, url, method string, hdr map[string]string, body string) io.ReadCloser {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	if hdr == nil {
		hdr = modernHeaders("subscriptions/listen", "")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	require.Equal(t, "no", resp.Header.Get("X-Accel-Buffering"))
	first := make([]byte, 1)
	_, err = io.ReadFull(resp.Body, first)
	require.NoError(t, err)
	return resp.Body
}

// TestServeStreamable_refusesOpenBindWithoutHosts: off loopback there is
// no safe default Host to accept.
func TestServeStreamable_refusesOpenBindWithoutHosts(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	require.NoError(t, err)
	defer ln.Close()
	err = s.ServeStreamable(t.Context(), ln, NewHTTPConfig())
	require.ErrorContains(t, err, "needs allowed hosts")
}

// TestHTTP_extraRoutesAndMiddleware: WithRoute serves an operator handler
// outside the guard; WithMCPMiddleware sees every /mcp response, refusals
// included; a conflicting route is a configuration error.
func TestHTTP_extraRoutesAndMiddleware(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	var seen []int
	mw := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := &statusRecorder{ResponseWriter: w}
			next.ServeHTTP(rec, r)
			seen = append(seen, rec.status)
		})
	}
	cfg := NewHTTPConfig().WithRoute("GET /metrics", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "up 1\n")
	})).WithMCPMiddleware(mw)
	url := serveHTTP(t, s, cfg)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, strings.TrimSuffix(url, MCPPath)+"/metrics", nil)
	require.NoError(t, err)
	req.Host = "localhost:9090" // on loopback, extra routes are Host-checked (TestHTTP_probesHostChecked)
	status, _, body := do(t, req)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "up 1\n", body)

	status, _, _ = rawPost(t, url, modernHeaders("resources/read", "notes:///hello"), modernRead("notes:///hello"))
	require.Equal(t, http.StatusOK, status)
	hdr := modernHeaders("resources/read", "notes:///hello")
	hdr["Origin"] = "https://evil.example"
	status, _, _ = rawPost(t, url, hdr, modernRead("notes:///hello"))
	require.Equal(t, http.StatusForbidden, status)
	require.Equal(t, []int{200, 403}, seen)

	_, err = s.HTTPHandler(NewHTTPConfig().WithRoute("/mcp", http.NotFoundHandler()))
	require.ErrorContains(t, err, `route "/mcp"`)
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// TestHTTP_changeNotifications: a legacy session hears its subscriptions
// and list changes on its GET stream; a 2026-07-28 listen hears them on
// its own stream.
func TestHTTP_changeNotifications(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()).withNotifyDelay(10*time.Millisecond))
	url := serveHTTP(t, s, NewHTTPConfig())
	updated, listChanged := make(chan string, 4), make(chan struct{}, 4)
	client := mcp.NewClient(&mcp.Implementation{Name: "subs", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			listChanged <- struct{}{}
		},
	})
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	defer cs.Close()
	require.NoError(t, cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "notes:///hello"}))

	listen := openStream(t, url, http.MethodPost, nil,
		`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"resourcesListChanged":true,"resourceSubscriptions":["notes:///hello"]},`+stdioMeta+`}}`)
	events := bufioLines(listen)
	waitLine(t, events, "notifications/subscriptions/acknowledged")

	s.ResourcesUpdated("notes", "notes:///hello")
	select {
	case uri := <-updated:
		require.Equal(t, "notes:///hello", uri)
	case <-time.After(testkit.Wait):
		t.Fatal("no resources/updated on the GET stream")
	}
	waitLine(t, events, `"uri":"notes:///hello"`)

	s.ResourceListChanged()
	select {
	case <-listChanged:
	case <-time.After(testkit.Wait):
		t.Fatal("no list_changed on the GET stream")
	}
	waitLine(t, events, "notifications/resources/list_changed")
}

// bufioLines feeds the lines of r into a channel.
func bufioLines(r io.Reader) <-chan string {
	ch := make(chan string, 64)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}

// waitLine waits for a line containing sub.
func waitLine(t testing.TB, lines <-chan string, sub string) {
	t.Helper()
	timeout := time.After(testkit.Wait)
	for {
		select {
		case l, ok := <-lines:
			require.True(t, ok, "stream ended before %q", sub)
			if strings.Contains(l, sub) {
				return
			}
		case <-timeout:
			t.Fatalf("no line with %q", sub)
		}
	}
}
