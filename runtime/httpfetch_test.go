package runtime_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// httpProbe loads testdata/httpprobe.wasm (see its .wat), which fetches
// the request in config key "req" and logs the raw response payload.
func httpProbe(t *testing.T, req string, g runtime.HTTPGrant, timeout time.Duration) (*runtime.Provider, *logSink) {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	logs := &logSink{}
	rt, err := runtime.New(ctx, runtime.NewConfig().WithLogger(slog.New(logs)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(ctx) })
	cfg := testkit.Limits(runtime.NewProviderConfig()).WithPoolSize(1).WithTimeout(timeout).
		WithGrants(runtime.Grants{HTTP: g, Config: map[string]string{"req": req}})
	p, err := rt.Load(ctx, "httpprobe", httpProbeWasm(t), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close(ctx) })
	return p, logs
}

func httpProbeWasm(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "httpprobe.wasm"))
	require.NoError(t, err)
	return b
}

// lastFetch returns the response payload the probe logged last.
func lastFetch(t *testing.T, logs *logSink) abi.FetchResponse {
	t.Helper()
	var out abi.FetchResponse
	recs := logs.snapshot()
	for i := len(recs) - 1; i >= 0; i-- {
		if msg, ok := strings.CutPrefix(recs[i].msg, "guest: "); ok {
			require.NoError(t, json.Unmarshal([]byte(msg), &out), msg)
			return out
		}
	}
	t.Fatal("the probe logged no response")
	return out
}

func TestHTTPImportNeedsGrant(t *testing.T) {
	ctx := t.Context()
	rt, err := runtime.New(ctx, runtime.NewConfig())
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(ctx) })
	_, err = rt.Load(ctx, "httpprobe", httpProbeWasm(t), testkit.Limits(runtime.NewProviderConfig()).WithGrants(runtime.Grants{Config: map[string]string{"req": "{}"}}))
	require.ErrorIs(t, err, runtime.ErrForbiddenImport)
	require.ErrorContains(t, err, "mcpw_v1.http_fetch needs outbound HTTP but the operator granted none")
	require.ErrorContains(t, err, "--allow-http PREFIX")

	rep := rt.Inspect(ctx, "httpprobe", httpProbeWasm(t), testkit.Limits(runtime.NewProviderConfig()))
	require.False(t, rep.Valid)
	verdicts := map[string]string{}
	for _, im := range rep.Imports {
		verdicts[im.Module+"."+im.Name] = im.Verdict
	}
	require.Equal(t, "needs an http grant", verdicts["mcpw_v1.http_fetch"])
	require.Equal(t, "needs an http grant", verdicts["mcpw_v1.http_read"])
}

func TestHTTPFetchThroughGuest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"path":"`+r.URL.Path+`"}`)
	}))
	t.Cleanup(srv.Close)
	grant := runtime.HTTPGrant{Allow: []runtime.HTTPRule{{Prefix: srv.URL + "/api/"}}, AllowPrivateNetwork: true}
	ctx := t.Context()

	p, logs := httpProbe(t, `{"url":"`+srv.URL+`/api/x"}`, grant, time.Second)
	_, err := p.Read(ctx, "hp:f")
	require.NoError(t, err)
	r := lastFetch(t, logs)
	require.Equal(t, 200, r.Status)
	require.JSONEq(t, `{"path":"/api/x"}`, r.Body)

	p, logs = httpProbe(t, `{"url":"`+srv.URL+`/admin"}`, grant, time.Second)
	_, err = p.Read(ctx, "hp:f")
	require.NoError(t, err, "a refusal is an answer the guest handles, not a fault")
	r = lastFetch(t, logs)
	require.Equal(t, abi.FetchDenied, r.Error.Code)
	require.Contains(t, r.Error.Message, "not under any allowed http prefix")

	p, logs = httpProbe(t, `{"url":"`+srv.URL+`/api/x"}`, grant, 5*time.Second)
	_, err = p.Read(ctx, "hp:n")
	require.NoError(t, err)
	require.Equal(t, abi.FetchLimit, lastFetch(t, logs).Error.Code, "at most 32 requests per call")

	p, _ = httpProbe(t, `{"url":"`+srv.URL+`/api/x"}`, grant, time.Second)
	for _, mode := range []string{"hp:o", "hp:r"} {
		_, err = p.Read(ctx, mode)
		require.ErrorIs(t, err, abi.ErrViolation, mode)
	}
	require.EqualValues(t, 2, p.Stats().Faults)
}

// TestHTTPFetchCallDeadline: a server slower than the call's deadline
// costs the call a timeout fault, and the host import returns promptly.
func TestHTTPFetchCallDeadline(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	grant := runtime.HTTPGrant{Allow: []runtime.HTTPRule{{Prefix: srv.URL + "/"}}, AllowPrivateNetwork: true}
	p, _ := httpProbe(t, `{"url":"`+srv.URL+`/slow"}`, grant, 300*time.Millisecond)
	start := time.Now()
	_, err := p.Read(t.Context(), "hp:f")
	require.ErrorIs(t, err, abi.ErrTimeout)
	require.ErrorContains(t, err, "http_fetch: call deadline passed during the request")
	require.Less(t, time.Since(start), 5*time.Second, "the host import returns when the call's deadline passes")
	require.EqualValues(t, 1, p.Stats().Faults)
}

// TestSecretsMaskedInGuestLogs: a guest that logs text containing a granted
// secret (here, a response that echoes it) does not put it in the host log.
func TestSecretsMaskedInGuestLogs(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "echo: s3cret-value")
	}))
	t.Cleanup(srv.Close)
	ctx := context.WithoutCancel(t.Context())
	logs := &logSink{}
	rt, err := runtime.New(ctx, runtime.NewConfig().WithLogger(slog.New(logs)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(ctx) })
	cfg := testkit.Limits(runtime.NewProviderConfig()).WithGrants(runtime.Grants{
		Config:  map[string]string{"req": `{"url":"` + srv.URL + `/"}`},
		Secrets: map[string]string{"token": "s3cret-value"},
		HTTP:    runtime.HTTPGrant{Allow: []runtime.HTTPRule{{Prefix: srv.URL + "/"}}, AllowPrivateNetwork: true},
	})
	p, err := rt.Load(ctx, "httpprobe", httpProbeWasm(t), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close(ctx) })
	_, err = p.Read(ctx, "hp:f")
	require.NoError(t, err)
	r := lastFetch(t, logs)
	require.Equal(t, "echo: ********", r.Body)
}
