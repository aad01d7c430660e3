package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/served"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// serveConfig runs `serve --config path args...` in-process on an empty
// stdin, which serves until end of input, that is, starts and stops.
func serveConfig(t *testing.T, path string, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	full := append([]string{"mcp-wasm", "serve", "--config", path}, args...)
	code := run(context.Background(), full, bytes.NewReader(nil), &out, &errb)
	require.Empty(t, out.String(), "stdout belongs to MCP")
	return code, errb.String()
}

func TestServe_configServerSettings(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "cache")
	path := testkit.WriteConfig(t, `{"server": {"logLevel": "debug", "logFormat": "json", "cacheDir": "`+cache+`", "pageSize": 7},
		"providers": [{"module": "minimal.wasm", "name": "mini"}, {"module": "good.wasm"}]}`)

	code, logs := serveConfig(t, path)
	require.Equal(t, 0, code, logs)
	require.Contains(t, logs, `"level":"DEBUG"`, "logLevel and logFormat come from the file")
	require.Contains(t, logs, `"msg":"provider loaded","provider":"mini"`)
	require.Contains(t, logs, `"msg":"serving MCP over stdio","providers":2`)
	require.DirExists(t, cache, "cacheDir comes from the file")

	code, logs = serveConfig(t, path, "--log-format", "text", "--log-level", "info")
	require.Equal(t, 0, code, logs)
	require.Contains(t, logs, `level=INFO msg="serving MCP over stdio" providers=2`, "flags given explicitly win")
	require.NotContains(t, logs, "level=DEBUG")
}

func TestServe_configErrors(t *testing.T) {
	path := testkit.WriteConfig(t, "{\"providers\": [\n{\"module\": \"minimal.wasm\", \"name\": \"a\"},\n{\"module\": \"minimal.wasm\", \"name\": \"b\"}\n]}")
	code, logs := serveConfig(t, path, "--log-level", "error")
	require.Equal(t, 1, code)
	require.Contains(t, logs, `mcp.json:3:1: providers[1] (provider "b"): claims min:, which overlaps min: claimed by providers[0] at line 2`)

	path = testkit.WriteConfig(t, `{"providers": [{"module": "minimal.wasm", "limits": {"timeout": "soon"}}]}`)
	code, logs = serveConfig(t, path)
	require.Equal(t, 1, code)
	require.True(t, strings.HasPrefix(logs, "mcp-wasm: "+path+":1:65: providers[0].limits.timeout (provider \"minimal.wasm\"): duration \"soon\""), logs)
}

// TestServe_serverBounds: --max-concurrency and --max-subscriptions, and
// their config keys, reach the runtime and the server: a value out of
// their range is their refusal.
func TestServe_serverBounds(t *testing.T) {
	path := testkit.WriteConfig(t, `{"server": {"maxConcurrency": 5000}, "providers": [{"module": "good.wasm"}]}`)
	code, logs := serveConfig(t, path)
	require.Equal(t, 1, code, logs)
	require.Contains(t, logs, "max concurrency 5000: use 1-4096")
	code, logs = serveConfig(t, path, "--max-concurrency", "8")
	require.Equal(t, 0, code, "the flag given explicitly wins: %s", logs)

	path = testkit.WriteConfig(t, `{"server": {"maxSubscriptions": 200000}, "providers": [{"module": "good.wasm"}]}`)
	code, logs = serveConfig(t, path)
	require.Equal(t, 1, code, logs)
	require.Contains(t, logs, "max subscriptions 200000 out of range")
}

// TestServe_liveShares: the per-client shares and totals of the live
// pools reach the server, which refuses a share above its total.
func TestServe_liveShares(t *testing.T) {
	path := testkit.WriteConfig(t, `{"providers": [{"module": "good.wasm"}]}`)
	code, logs := serveConfig(t, path, "--max-listens-per-client", "300", "--max-listens", "100")
	require.Equal(t, 1, code, logs)
	require.Contains(t, logs, "listens per client 300, total 100")
	code, logs = serveConfig(t, path, "--max-subscriptions-per-client", "0")
	require.Equal(t, 1, code, logs)
	require.Contains(t, logs, "subscriptions per client 0, total 50000")
}

// TestE2E_maxSubscriptions: --max-subscriptions bounds a session's
// subscriptions on the real binary.
func TestE2E_maxSubscriptions(t *testing.T) {
	cs := connect(t, "2025-11-25", "--module", testkit.Fixture("hostile", "good.wasm"), "--max-subscriptions", "1")
	require.NoError(t, cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "evil:good"}))
	err := cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "evil:other"})
	require.Equal(t, int64(-32602), rpcCode(t, err))
}

// TestServe_configResourceTools: "resourceTools": true in the file's server
// settings turns the tools view on, as --resource-tools does; the flag
// given explicitly wins.
func TestServe_configResourceTools(t *testing.T) {
	path := testkit.WriteConfig(t, `{"server": {"resourceTools": true}, "providers": [{"module": "minimal.wasm"}]}`)
	toolsList := func(args ...string) string {
		var out, errb bytes.Buffer
		in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n")
		code := run(context.Background(), append([]string{"mcp-wasm", "serve", "--config", path}, args...), in, &out, &errb)
		require.Equal(t, 0, code, errb.String())
		return out.String()
	}
	require.Contains(t, toolsList(), `"name":"read_resource"`)
	require.Contains(t, toolsList("--resource-tools=false"), `"tools":[]`)
}

// TestServe_configExpose: "expose" hides what the operator names, through
// the real serve over stdio (a hidden URI reads as not found), and a bad
// pattern is a config error at its line, with the fix.
func TestServe_configExpose(t *testing.T) {
	path := testkit.WriteConfig(t, `{"providers": [{"module": "minimal.wasm", "expose": {"exclude": ["min:secret*"]}}]}`)
	var out, errb bytes.Buffer
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"min:secret-plan",` + meta + `}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"min:a",` + meta + `}}` + "\n")
	code := run(context.Background(), []string{"mcp-wasm", "serve", "--config", path}, in, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	// The server answers requests concurrently: the answers may come in
	// either order.
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2)
	if !strings.Contains(lines[0], `"id":1,`) {
		lines[0], lines[1] = lines[1], lines[0]
	}
	require.Contains(t, lines[0], `"id":1,"error":{"code":-32602,"message":"resource not found"`)
	require.Contains(t, lines[1], `"id":2,`)
	require.Contains(t, lines[1], `"text":"hello"`)

	code, stdout, _ := runCLI(t, "validate", "--config", path)
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "exposes:    exclude min:secret*")

	path = testkit.WriteConfig(t, "{\"providers\": [{\"module\": \"minimal.wasm\",\n \"expose\": {\"include\": [\"/docs/**\"]}}]}")
	code, logs := serveConfig(t, path)
	require.Equal(t, 1, code)
	require.Contains(t, logs, `mcp.json:2:12: providers[0].expose (provider "minimal.wasm"): invalid uri pattern: include pattern "/docs/**": does not start with a scheme`)
}

// TestPublish_exposeFollowsReload: the operator's filter is applied where
// the served set hands providers to the server (serverProviders, through
// publishTo), so a reload that changes "expose" changes what clients see,
// and one that drops it shows everything again.
func TestPublish_exposeFollowsReload(t *testing.T) {
	path := testkit.WriteConfig(t, `{"providers": [{"module": "minimal.wasm"}]}`)
	reread := func() (*config.Config, error) {
		cfg, err := config.Read(path, os.LookupEnv)
		if err != nil {
			return nil, err
		}
		return patientConfig(cfg), nil
	}
	cfg, err := reread()
	require.NoError(t, err)
	rt, err := runtime.New(t.Context(), runtime.NewConfig())
	require.NoError(t, err)
	defer rt.Close(context.WithoutCancel(t.Context()))
	loader := served.NewLoader(rt, served.ResolveFile, nil)
	first, err := loader.Load(t.Context(), cfg)
	require.NoError(t, err)
	srv, err := server.New(server.NewConfig().WithProviders(serverProviders(first.Providers())...))
	require.NoError(t, err)
	set := served.NewSet(loader, first, served.SetOptions{Reread: reread, Publish: publishTo(srv)})
	defer set.Close(context.Background())
	read := func() string {
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
		return serveLines(t, srv, []string{`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"min:a",` + meta + `}}`})
	}
	require.Contains(t, read(), `"text":"hello"`)

	require.NoError(t, os.WriteFile(path, []byte(`{"providers": [{"module": "minimal.wasm", "expose": {"exclude": ["min:a"]}}]}`), 0o644))
	require.NoError(t, set.Reload(t.Context(), "test"))
	require.Contains(t, read(), `"error":{"code":-32602,"message":"resource not found"`)

	require.NoError(t, os.WriteFile(path, []byte(`{"providers": [{"module": "minimal.wasm"}]}`), 0o644))
	require.NoError(t, set.Reload(t.Context(), "test"))
	require.Contains(t, read(), `"text":"hello"`)
}
