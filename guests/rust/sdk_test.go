// Package rust_test runs the Rust SDK's own tests (cargo test: the JSON
// codec, payload encoding, result checks, the call path with a native host)
// as part of go test, with the toolchain internal/testguest finds, and
// drives a probe guest's host services through the real runtime.
package rust_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
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
		p, err := rt.LoadFile(ctx, wasm, testkit.Limits(runtime.NewProviderConfig()).WithPoolSize(1).WithGrants(runtime.Grants{
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

// TestRustRawContent: a read's text and blob bodies reach the host through
// content_write (ABI §6.3), not escaped or base64-encoded in the guest. The
// module imports mcpw_v1.content_write, and under an output limit that the
// bodies fit but their inline forms do not (NULs escape to 6 bytes each,
// base64 is 4/3), the reads succeed and arrive intact; so do four contents
// of one read, empty ones included, each body used once.
func TestRustRawContent(t *testing.T) {
	wasm := testguest.Rust(t, "guests/rust/testdata/probe", "probe")
	ctx := t.Context()
	require.Contains(t, importNames(t, wasm), "mcpw_v1.content_write")

	const limit = 110 << 10
	nuls := "é" + strings.Repeat("\x00", 100<<10-4) + "é"
	bytes := make([]byte, 96<<10)
	for i := range bytes {
		bytes[i] = byte(i)
	}
	inline, err := json.Marshal(map[string]any{"text": nuls, "blob": bytes}) // []byte marshals as base64
	require.NoError(t, err)
	require.Greater(t, len(inline)/2, limit, "each inline form alone must exceed the limit")

	rt, err := runtime.New(ctx, runtime.NewConfig())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	// The probe imports http_fetch, so it loads only with some grant.
	grant := runtime.HTTPGrant{Allow: []runtime.HTTPRule{{Prefix: "https://example.invalid/", Methods: []string{"GET"}}}}
	p, err := rt.LoadFile(ctx, wasm, testkit.Limits(runtime.NewProviderConfig()).WithPoolSize(1).WithOutputLimit(limit).WithGrants(runtime.Grants{HTTP: grant}))
	require.NoError(t, err)

	r, err := p.Read(ctx, "probe:///nuls")
	require.NoError(t, err)
	require.Len(t, r.Contents, 1)
	require.Equal(t, nuls, *r.Contents[0].Text)

	r, err = p.Read(ctx, "probe:///bytes")
	require.NoError(t, err)
	require.Len(t, r.Contents, 1)
	require.Equal(t, base64.StdEncoding.EncodeToString(bytes), *r.Contents[0].Blob)

	r, err = p.Read(ctx, "probe:///mixed")
	require.NoError(t, err)
	var got []string
	for _, c := range r.Contents {
		switch {
		case c.Text != nil:
			got = append(got, "text:"+*c.Text)
		case c.Blob != nil:
			got = append(got, "blob:"+*c.Blob)
		}
	}
	require.Equal(t, []string{"text:", "blob:", "text:a\"b\\c\n", "blob:AP+A"}, got)
	require.Zero(t, p.Stats().Faults)
}

// importNames lists a module's imported functions as "module.name".
func importNames(t *testing.T, wasm string) []string {
	t.Helper()
	b, err := os.ReadFile(wasm)
	require.NoError(t, err)
	ctx := t.Context()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	t.Cleanup(func() { require.NoError(t, r.Close(ctx)) })
	m, err := r.CompileModule(ctx, b)
	require.NoError(t, err)
	var names []string
	for _, f := range m.ImportedFunctions() {
		mod, name, _ := f.Import()
		names = append(names, mod+"."+name)
	}
	return names
}
