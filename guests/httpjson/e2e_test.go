package main_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// api is a local JSON API with one way to misbehave per path.
func api(t *testing.T) (srv, other *httptest.Server, auth *string) {
	var mu sync.Mutex
	var got string
	auth = &got
	release := make(chan struct{})
	other = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"reached":"the forbidden host"}`)
	}))
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Header.Get("Authorization")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/users/1":
			_, _ = io.WriteString(w, `{"id":1,"name":"Ada"}`)
		case "/api/away":
			http.Redirect(w, r, other.URL+"/api/users/1", http.StatusFound)
		case "/api/big":
			_, _ = io.WriteString(w, `"`+strings.Repeat("x", 4096)+`"`)
		case "/api/slow":
			select {
			case <-release:
			case <-r.Context().Done():
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(func() { srv.Close(); other.Close(); close(release) })
	return srv, other, auth
}

type env struct {
	rt   *runtime.Runtime
	wasm string
	logs *strings.Builder
	mu   *sync.Mutex
}

func newEnv(t *testing.T) *env {
	ctx := context.WithoutCancel(t.Context())
	e := &env{wasm: testguest.Go(t, "guests/httpjson"), logs: &strings.Builder{}, mu: &sync.Mutex{}}
	rt, err := runtime.New(ctx, runtime.NewConfig().WithLogger(slog.New(slog.NewTextHandler(lockedWriter{e}, nil))))
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(ctx) })
	e.rt = rt
	return e
}

type lockedWriter struct{ e *env }

func (w lockedWriter) Write(b []byte) (int, error) {
	w.e.mu.Lock()
	defer w.e.mu.Unlock()
	return w.e.logs.Write(b)
}

func (e *env) load(t *testing.T, g runtime.Grants, timeout time.Duration) (*runtime.Provider, error) {
	ctx := context.WithoutCancel(t.Context())
	p, err := e.rt.LoadFile(ctx, e.wasm, testkit.Limits(runtime.NewProviderConfig()).WithPoolSize(1).WithTimeout(timeout).WithGrants(g).
		WithCompileTimeout(10*time.Minute)) // -race on a busy machine compiles slowly
	if p != nil {
		t.Cleanup(func() { _ = p.Close(ctx) })
	}
	return p, err
}

func (e *env) logged() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.logs.String()
}

// TestHTTPJSONWasm drives the real httpjson.wasm in the real runtime
// against a local API. The subtests share one runtime, so the module is
// compiled once.
func TestHTTPJSONWasm(t *testing.T) {
	e := newEnv(t)
	t.Run("serves", func(t *testing.T) { testServes(t, e) })
	t.Run("needs a grant", func(t *testing.T) { testNeedsGrant(t, e) })
	t.Run("egress refused", func(t *testing.T) { testEgressRefused(t, e) })
}

func testServes(t *testing.T, e *env) {
	srv, _, auth := api(t)
	ctx := t.Context()
	p, err := e.load(t, runtime.Grants{
		Config:  map[string]string{"base_url": srv.URL + "/api/", "paths": "users/1,users/2"},
		Secrets: map[string]string{"token": "s3cret"},
		HTTP:    runtime.HTTPGrant{Allow: []runtime.HTTPRule{{Prefix: srv.URL + "/api/"}}, AllowPrivateNetwork: true},
	}, testkit.Patient)
	require.NoError(t, err)

	res, err := p.Read(ctx, "httpjson:///users/1")
	require.NoError(t, err)
	require.JSONEq(t, `{"id":1,"name":"Ada"}`, *res.Contents[0].Text)
	require.Equal(t, "Bearer s3cret", *auth, "the secret reaches the API, and only the API")
	require.NotContains(t, e.logged(), "s3cret")

	page, err := p.List(ctx, "")
	require.NoError(t, err)
	require.Len(t, page.Resources, 2)
	_, err = p.Read(ctx, "httpjson:///users/2")
	require.ErrorIs(t, err, abi.ErrNotFound)
	require.Zero(t, p.Stats().Faults)
}

func testNeedsGrant(t *testing.T, e *env) {
	_, err := e.load(t, runtime.Grants{Config: map[string]string{"base_url": "https://api.example.com/"}}, time.Second)
	require.ErrorIs(t, err, runtime.ErrForbiddenImport)
	require.ErrorContains(t, err, "mcpw_v1.http_fetch needs outbound HTTP but the operator granted none")
}

// testEgressRefused is the end-to-end evidence for the egress rules: each
// is refused with an error that says which rule and why, in the call's
// error and in the operator's log, and nothing reaches a host the operator
// did not allow.
func testEgressRefused(t *testing.T, e *env) {
	srv, other, _ := api(t)
	port := strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
	grant := func(prefix string, private bool) runtime.HTTPGrant {
		return runtime.HTTPGrant{Allow: []runtime.HTTPRule{{Prefix: prefix}}, AllowPrivateNetwork: private, MaxResponseBytes: 1024}
	}
	// Only the slow server's case is about the call deadline; the others
	// are refusals, under the patient deadline that a loaded machine
	// cannot reach.
	patient := testkit.Patient
	cases := []struct {
		name    string
		base    string
		http    runtime.HTTPGrant
		timeout time.Duration
		read    string
		kind    error
		want    []string
	}{
		{"redirect to a forbidden host", srv.URL + "/api/", grant(srv.URL+"/api/", true), patient, "away", abi.ErrProviderInternal,
			[]string{"http denied", "redirect to GET " + other.URL + "/api/users/1: not under any allowed http prefix"}},
		{"DNS name resolving to loopback", "http://localhost:" + port + "/api/", grant("http://localhost:"+port+"/api/", false), patient, "users/1", abi.ErrProviderInternal,
			[]string{"http denied", "localhost: address", "loopback address", "--allow-private-network"}},
		{"oversized response", srv.URL + "/api/", grant(srv.URL+"/api/", true), patient, "big", abi.ErrProviderInternal,
			[]string{"http too_large", "over the 1024-byte cap"}},
		{"slow server past the deadline", srv.URL + "/api/", grant(srv.URL+"/api/", true), 2 * time.Second, "slow", abi.ErrTimeout,
			[]string{"http_fetch: call deadline passed during the request"}},
		{"path outside the prefix", srv.URL + "/", grant(srv.URL+"/api/", true), patient, "users/1", abi.ErrProviderInternal,
			[]string{"http denied", "not under any allowed http prefix"}},
		{"disallowed scheme", "https://127.0.0.1:" + port + "/api/", grant(srv.URL+"/api/", true), patient, "users/1", abi.ErrProviderInternal,
			[]string{"http denied", "not under any allowed http prefix"}},
		{"private IP literal", "http://10.0.0.1/", grant("http://10.0.0.1/", false), patient, "users/1", abi.ErrProviderInternal,
			[]string{"http denied", "address 10.0.0.1 is a private address"}},
		{"cloud metadata", "http://169.254.169.254/latest/", grant("http://169.254.169.254/", true), patient, "meta-data", abi.ErrProviderInternal,
			[]string{"http denied", "cloud metadata address, always refused"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := e.load(t, runtime.Grants{Config: map[string]string{"base_url": c.base}, HTTP: c.http}, c.timeout)
			require.NoError(t, err)
			_, err = p.Read(t.Context(), "httpjson:///"+c.read)
			require.ErrorIs(t, err, c.kind)
			for _, w := range c.want {
				require.ErrorContains(t, err, w)
			}
			// The slow server answers only when the test ends: a read
			// that returns ErrTimeout was ended by the call's deadline.
			require.NotContains(t, err.Error(), "the forbidden host")
		})
	}
	require.Contains(t, e.logged(), "http_fetch refused", "the operator's log names every refusal")
}
