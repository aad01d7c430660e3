// Package assemblyscript_test runs the AssemblyScript SDK's own tests
// (node --test test/sdk.test.js: the probe provider through its real
// exports with a mock host) as part of go test, and drives the same probe's
// host services through the real runtime.
package assemblyscript_test

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

func TestAssemblyScriptSDK(t *testing.T) {
	testguest.RequireAssemblyScript(t)
	cmd := exec.Command("node", "--test", "test/sdk.test.js")
	cmd.Dir = filepath.Join(testguest.Root(), "guests", "assemblyscript")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test in guests/assemblyscript: %v\n%s", err, out)
	}
}

// TestAssemblyScriptHostServices: httpFetch, configGet and log through the
// real host's imports: the request's method, header and body arrive, the
// status, a header and a binary body (sent as bodyBase64) come back, a
// refusal is an answer, not a fault, and an over-long config value is read
// on the second try.
func TestAssemblyScriptHostServices(t *testing.T) {
	wasm := testguest.AssemblyScript(t, "guests/assemblyscript/test/probe.ts")
	var gotMethod, gotAccept, gotBody string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotMethod, gotAccept, gotBody = r.Method, r.Header.Get("Accept"), string(b)
		w.Header().Set("Content-Type", "application/octet-stream")
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write([]byte{0, 0xff, 'a', 0x80})
	}))
	t.Cleanup(srv.Close)
	ctx := t.Context()
	rt, err := runtime.New(ctx, runtime.NewConfig())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	load := func(prefix string, config map[string]string) *runtime.Provider {
		p, err := rt.LoadFile(ctx, wasm, runtime.NewProviderConfig().WithPoolSize(1).WithGrants(runtime.Grants{
			Config: config,
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
	long := string(make([]byte, 1000)) // 1000 NULs: longer than the first buffer, and escaped

	p := load(srv.URL+"/", map[string]string{"url": srv.URL + "/x", "k": long})
	require.Equal(t, "418 application/octet-stream 00ff6180", read(p, "p:///fetch"))
	require.Equal(t, []string{"GET", "*/*"}, []string{gotMethod, gotAccept})
	require.Equal(t, long, read(p, "p:///config"))

	post := load(srv.URL+"/", map[string]string{"url": srv.URL + "/x", "post": "1"})
	require.Equal(t, "418 application/octet-stream 00ff6180", read(post, "p:///fetch"))
	require.Equal(t, []string{"POST", `a"b`}, []string{gotMethod, gotBody})

	denied := load(srv.URL+"/other/", map[string]string{"url": srv.URL + "/x"})
	require.Regexp(t, `^error denied .+`, read(denied, "p:///fetch"))
	require.Zero(t, p.Stats().Faults+post.Stats().Faults+denied.Stats().Faults)
}
