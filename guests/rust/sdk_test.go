// Package rust_test runs the Rust SDK's own tests (cargo test: the JSON
// codec, payload encoding, result checks, the call path with a native host)
// as part of go test, with the toolchain internal/testguest finds, and
// drives a probe guest's host services through the real runtime.
package rust_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

func TestRustSDK(t *testing.T) {
	tc := testguest.RequireRust(t)
	cmd := exec.Command(tc.Cargo, "test", "--offline", "--quiet")
	cmd.Dir = filepath.Join(testguest.Root(), "guests", "rust")
	cmd.Env = testguest.RustEnv(tc, filepath.Join(testguest.Root(), "build", "testguest", "cargo-test"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cargo test in guests/rust: %v\n%s", err, out)
	}
}

// TestRustHTTPFetch: http_fetch and config_get through the real host's
// imports: the request's method, header and body arrive, the status, a
// header and a binary body (sent as bodyBase64) come back, and a refusal is
// an answer, not a fault.
func TestRustHTTPFetch(t *testing.T) {
	wasm := testguest.Rust(t, "guests/rust/testdata/probe", "probe")
	var gotMethod, gotProbe, gotBody string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotMethod, gotProbe, gotBody = r.Method, r.Header.Get("X-Probe"), string(b)
		w.Header().Set("Content-Type", "application/octet-stream")
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write([]byte{0, 0xff, 'a', 0x80})
	}))
	t.Cleanup(srv.Close)
	ctx := t.Context()
	rt, err := runtime.New(ctx, runtime.NewConfig())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	load := func(prefix string) *runtime.Provider {
		p, err := rt.LoadFile(ctx, wasm, runtime.NewProviderConfig().WithPoolSize(1).WithGrants(runtime.Grants{
			Config: map[string]string{"url": srv.URL + "/x"},
			HTTP:   runtime.HTTPGrant{Allow: []runtime.HTTPRule{{Prefix: prefix, Methods: []string{"GET", "POST"}}}, AllowPrivateNetwork: true},
		}))
		require.NoError(t, err)
		return p
	}
	read := func(p *runtime.Provider, uri string) string {
		res, err := p.Read(ctx, uri)
		require.NoError(t, err)
		return *res.Contents[0].Text
	}

	p := load(srv.URL + "/")
	require.Equal(t, "status=418 type=application/octet-stream body=00ff6180", read(p, "probe:///fetch"))
	require.Equal(t, []string{"GET", "1"}, []string{gotMethod, gotProbe})
	require.Equal(t, "status=418 type=application/octet-stream body=00ff6180", read(p, "probe:///post"))
	require.Equal(t, []string{"POST", `a"b`}, []string{gotMethod, gotBody})

	denied := load(srv.URL + "/other/")
	require.Regexp(t, `^code=denied message=.+`, read(denied, "probe:///fetch"))
	require.Zero(t, p.Stats().Faults+denied.Stats().Faults)
}
