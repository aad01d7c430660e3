package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// The HTTP end-to-end tests run `mcp-wasm serve --http 127.0.0.1:0`, find
// the bound address on stderr, and talk to it with the go-sdk client and
// raw HTTP.

var servingRE = regexp.MustCompile(`mcp-wasm: serving MCP on (\S+)`)

// httpServer is a running `mcp-wasm serve --http`.
type httpServer struct {
	cmd *exec.Cmd
	url string // the /mcp endpoint

	mu     sync.Mutex
	stderr strings.Builder
	done   chan struct{}
}

// startHTTP starts serve --http 127.0.0.1:0 with args and env, and waits
// until it prints its URL.
func startHTTP(t *testing.T, env []string, args ...string) *httpServer {
	t.Helper()
	full := append([]string{"serve", "--http", "127.0.0.1:0", "--cache-dir", testguest.CompileCache()}, patientArgs(args)...)
	s := &httpServer{cmd: exec.Command(binary(t), full...), done: make(chan struct{})}
	s.cmd.Env = append(os.Environ(), env...)
	pipe, err := s.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, s.cmd.Start())
	t.Cleanup(func() {
		_ = s.cmd.Process.Kill()
		<-s.done
		_ = s.cmd.Wait()
		t.Log(s.logs())
	})
	found := make(chan string, 1)
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			s.mu.Lock()
			s.stderr.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case s.url = <-found:
	case <-s.done:
		t.Fatalf("serve exited before listening:\n%s", s.logs())
	case <-time.After(testkit.Wait):
		t.Fatalf("serve did not print its URL:\n%s", s.logs())
	}
	return s
}

func (s *httpServer) logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// stop sends SIGTERM and returns the exit error once it has exited.
func (s *httpServer) stop(t *testing.T) error {
	t.Helper()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-s.done:
	case <-time.After(testkit.Wait):
		t.Fatal("serve did not exit after SIGTERM")
	}
	return s.cmd.Wait()
}

type tokenTransport struct{ token string }

func (tt tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+tt.token)
	return http.DefaultTransport.RoundTrip(r)
}

func connectURL(t *testing.T, url, revision string, hc *http.Client) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-http", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: revision})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func httpGet(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// TestE2E_HTTP_everyRevision: one process serves every revision on /mcp,
// health endpoints answer, SIGTERM exits 0.
func TestE2E_HTTP_everyRevision(t *testing.T) {
	dir := filesTree(t)
	srv := startHTTP(t, nil, "--allow-dir", dir)
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			cs := connectURL(t, srv.url, rev, nil)
			if rev < "2026-07-28" {
				require.NotEmpty(t, cs.ID(), "legacy revisions get a session")
			}
			uris := map[string]bool{}
			for _, r := range listAll(t, cs) {
				uris[r.URI] = true
			}
			require.True(t, uris[uriIn(t, dir, "hello.txt")])
			require.False(t, uris[uriIn(t, dir, ".hidden")])
			res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uriIn(t, dir, "hello.txt")})
			require.NoError(t, err)
			require.Equal(t, "hello, world\n", res.Contents[0].Text)
		})
	}
	base := strings.TrimSuffix(srv.url, "/mcp")
	require.Equal(t, http.StatusOK, httpGet(t, base+"/healthz"))
	require.Equal(t, http.StatusOK, httpGet(t, base+"/readyz"))
	require.NoError(t, srv.stop(t), "SIGTERM exits 0")
	require.Contains(t, srv.logs(), "audit=true who=session:")
	require.Contains(t, srv.logs(), "audit=true who=anonymous@127.0.0.1 method=resources/read uri="+uriIn(t, dir, "hello.txt")+" provider=files decision=allow bytes=13")
}

// TestE2E_HTTP_tokenFromEnv: --auth-token-env names the variable; a
// request without the token is 401, with it the client works, and the
// audit lines, in the --audit-log file, name the token's subject.
func TestE2E_HTTP_tokenFromEnv(t *testing.T) {
	audit := filepath.Join(t.TempDir(), "audit.log")
	dir := filesTree(t)
	srv := startHTTP(t, []string{"MCPW_TEST_TOKEN=s3cret-token"}, "--allow-dir", dir, "--auth-token-env", "MCPW_TEST_TOKEN",
		"--audit-log", audit)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.url, strings.NewReader(`{}`))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Contains(t, resp.Header.Get("WWW-Authenticate"), "Bearer")

	cs := connectURL(t, srv.url, "2026-07-28", &http.Client{Transport: tokenTransport{"s3cret-token"}})
	_, err = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uriIn(t, dir, "hello.txt")})
	require.NoError(t, err)
	require.NoError(t, srv.stop(t))
	b, err := os.ReadFile(audit)
	require.NoError(t, err)
	lines := string(b)
	require.Contains(t, lines, "audit=true who=static:env:MCPW_TEST_TOKEN method=resources/read")
	require.Contains(t, lines, "decision=deny reason=unauthenticated status=401")
	require.NotContains(t, srv.logs(), "audit=true", "--audit-log FILE takes the audit lines off stderr")
	require.NotContains(t, lines+srv.logs(), "s3cret-token", "the token is never logged")
	fi, err := os.Stat(audit)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}

// TestE2E_HTTP_SIGTERMFinishesInFlight: SIGTERM while a read is running
// lets it be answered before the process exits 0.
func TestE2E_HTTP_SIGTERMFinishesInFlight(t *testing.T) {
	loop := filepath.Join(testguest.Root(), "testdata", "hostile", "loop.wasm")
	srv := startHTTP(t, nil, "--module", loop, "--timeout", "1s", "--log-level", "warn")
	sent := make(chan struct{})
	slow := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		return &sentConn{Conn: c, sent: sent}, err
	}}}
	answered := make(chan string, 1)
	go func() { answered <- modernReadOver(slow, srv.url, "evil:loop") }()
	<-sent
	// A later connection answered: the server has accepted the slow one.
	require.Contains(t, modernReadOver(http.DefaultClient, srv.url, "evil:good"), `"result"`)
	require.NoError(t, srv.cmd.Process.Signal(syscall.SIGTERM))
	got := <-answered
	require.Contains(t, got, `"id":2`, "the in-flight call is answered after SIGTERM")
	require.Contains(t, got, "-32603")
	require.NotContains(t, got, "evil")
	select {
	case <-srv.done:
	case <-time.After(testkit.Wait):
		t.Fatal("no exit")
	}
	require.NoError(t, srv.cmd.Wait(), "clean shutdown exits 0")
}

// sentConn closes sent once the request has been written.
type sentConn struct {
	net.Conn
	sent chan struct{}
	once sync.Once
}

func (c *sentConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.once.Do(func() { close(c.sent) })
	return n, err
}

// modernReadOver reads uri with a raw 2026-07-28 request (id 2) and
// returns the response body, or the error.
func modernReadOver(hc *http.Client, url, uri string) string {
	body := `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"` + uri + `","_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "resources/read")
	req.Header.Set("Mcp-Name", uri)
	resp, err := hc.Do(req)
	if err != nil {
		return "error: " + err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func TestServe_HTTPUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--auth-token-file", "x"}, "--auth-token-file needs --http"},
		{[]string{"serve", "--http", "0.0.0.0:0"}, "not a loopback address: give --allowed-host"},
		{[]string{"serve", "--http", "nope"}, "give PORT, HOST:PORT"},
		{[]string{"serve", "--http", "0", "--tls-cert", "c.pem"}, "both --tls-cert"},
		{[]string{"serve", "--http", "0", "--oauth-issuer", "https://idp.example.com"}, "both --oauth-issuer"},
		{[]string{"serve", "--http", "0", "--auth-token-env", "MCPW_SURELY_UNSET"}, "export MCPW_SURELY_UNSET=TOKEN"},
		{[]string{"serve", "--http", "0", "--max-body", "lots"}, "--max-body"},
	}
	for _, tt := range tests {
		code, _, stderr := runCLI(t, tt.args...)
		require.Equal(t, 2, code, "%v: %s", tt.args, stderr)
		require.Contains(t, stderr, tt.want, tt.args)
	}
}

func TestListenAddr(t *testing.T) {
	for in, want := range map[string]string{
		"8080": "127.0.0.1:8080", ":8080": "127.0.0.1:8080", "0": "127.0.0.1:0",
		"0.0.0.0:80": "0.0.0.0:80", "[::1]:9": "[::1]:9", "localhost:7": "localhost:7",
	} {
		got, err := listenAddr(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
}

func TestReadTokenFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tokens")
	require.NoError(t, os.WriteFile(p, []byte("# operators\n\nalice tok-a\n  tok-b  \n"), 0o600))
	got, err := readTokenFile(p)
	require.NoError(t, err)
	require.Equal(t, []fileToken{{"alice", "tok-a"}, {"", "tok-b"}}, got)

	require.NoError(t, os.WriteFile(p, []byte("a b c\n"), 0o600))
	_, err = readTokenFile(p)
	require.ErrorContains(t, err, "line 1")
	require.NoError(t, os.WriteFile(p, []byte("# none\n"), 0o600))
	_, err = readTokenFile(p)
	require.ErrorContains(t, err, "no token")
}

func TestTrustedProxies(t *testing.T) {
	got, err := trustedProxies([]string{"10.0.0.0/8", "192.0.2.7", "2001:db8::1/64"})
	require.NoError(t, err)
	require.Equal(t, "[10.0.0.0/8 192.0.2.7/32 2001:db8::/64]", fmt.Sprint(got))
	_, err = trustedProxies([]string{"proxy.local"})
	require.Error(t, err)
}

// TestE2E_HTTP_cursorsAcrossReplicas: two replicas sharing
// --cursor-key-env accept each other's list cursors, so a 2026-07-28
// client may page through replicas behind any load balancer; a replica
// with another key refuses them.
func TestE2E_HTTP_cursorsAcrossReplicas(t *testing.T) {
	dir := filesTree(t)
	shared := []string{"MCPW_CURSOR_KEY=0123456789abcdef0123456789abcdef"}
	args := []string{"--allow-dir", dir, "--page-size", "1", "--cursor-key-env", "MCPW_CURSOR_KEY", "--audit-log", "off"}
	a := startHTTP(t, shared, args...)
	b := startHTTP(t, shared, args...)
	c := startHTTP(t, []string{"MCPW_CURSOR_KEY=another-key-another-key-another!"}, args...)

	first, err := connectURL(t, a.url, "2026-07-28", nil).ListResources(t.Context(), nil)
	require.NoError(t, err)
	require.NotEmpty(t, first.NextCursor)
	second, err := connectURL(t, b.url, "2026-07-28", nil).ListResources(t.Context(), &mcp.ListResourcesParams{Cursor: first.NextCursor})
	require.NoError(t, err, "replica b continues replica a's listing")
	require.NotEqual(t, first.Resources[0].URI, second.Resources[0].URI)
	_, err = connectURL(t, c.url, "2026-07-28", nil).ListResources(t.Context(), &mcp.ListResourcesParams{Cursor: first.NextCursor})
	require.Equal(t, int64(-32602), rpcCode(t, err), "another key: the cursor is refused")
}

// TestE2E_HTTP_readyzFollowsQuarantine: /readyz is 200 while the only
// provider serves and 503 once repeated traps quarantine it; /healthz
// stays 200.
func TestE2E_HTTP_readyzFollowsQuarantine(t *testing.T) {
	traps := filepath.Join(testguest.Root(), "testdata", "hostile", "traps.wasm")
	srv := startHTTP(t, nil, "--module", traps, "--log-level", "error", "--audit-log", "off")
	base := strings.TrimSuffix(srv.url, "/mcp")
	require.Equal(t, http.StatusOK, httpGet(t, base+"/readyz"))
	cs := connectURL(t, srv.url, "2026-07-28", nil)
	for range 5 { // the default fault threshold
		_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "evil:unreachable"})
		require.Error(t, err)
	}
	require.Equal(t, http.StatusServiceUnavailable, httpGet(t, base+"/readyz"), "quarantined: not ready")
	require.Equal(t, http.StatusOK, httpGet(t, base+"/healthz"), "but alive")
}

// TestE2E_HTTP_loopbackDefaults: with default flags on loopback, one local
// client is neither rate limited nor held to the per-client session bound
// (every local client has that address); given explicitly, the bound holds.
func TestE2E_HTTP_loopbackDefaults(t *testing.T) {
	loop := filepath.Join(testguest.Root(), "testdata", "hostile", "loop.wasm")
	post := func(url, body string) int {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

	srv := startHTTP(t, nil, "--module", loop, "--log-level", "warn", "--audit-log", "off")
	for i := range 300 {
		require.Equal(t, http.StatusOK, post(srv.url, initialize), "request %d from one local client", i+1)
	}

	bounded := startHTTP(t, nil, "--module", loop, "--log-level", "warn", "--audit-log", "off", "--max-sessions-per-client", "3")
	for range 3 {
		require.Equal(t, http.StatusOK, post(bounded.url, initialize))
	}
	require.Equal(t, http.StatusTooManyRequests, post(bounded.url, initialize), "an explicit bound applies on loopback")
}
