package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

func httpProbe() string {
	return filepath.Join(testguest.Root(), "runtime", "testdata", "httpprobe.wasm")
}

func TestParseHTTPRule(t *testing.T) {
	for spec, want := range map[string]runtime.HTTPRule{
		"https://api.example.com/v1/":          {Prefix: "https://api.example.com/v1/"},
		"GET,POST=https://api.example.com/v1/": {Prefix: "https://api.example.com/v1/", Methods: []string{"GET", "POST"}},
		"post=https://h/":                      {Prefix: "https://h/", Methods: []string{"POST"}},
		"https://h/x=1":                        {Prefix: "https://h/x=1"},
	} {
		require.Equal(t, want, parseHTTPRule(spec), spec)
	}
}

func TestValuesFromEnv(t *testing.T) {
	env := map[string]string{"API_TOKEN": "hunter2", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	got, err := valuesFromEnv("secret-env", []string{"token=API_TOKEN", "blank=EMPTY"}, lookup)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"token": "hunter2", "blank": ""}, got)
	for _, specs := range [][]string{{"token"}, {"=X"}, {"token="}, {"token=UNSET"}, {"a=EMPTY", "a=EMPTY"}} {
		_, err := valuesFromEnv("secret-env", specs, lookup)
		require.Error(t, err, "%v", specs)
		require.NotContains(t, err.Error(), "hunter2")
	}
	_, err = valuesFromEnv("secret-env", []string{"token=UNSET"}, lookup)
	require.ErrorContains(t, err, "environment variable UNSET is not set: export it")
}

// TestInspectGrants: inspect lines up requests and grants, and a secret
// passed through the environment never appears in its output.
func TestInspectGrants(t *testing.T) {
	t.Setenv("MCPW_TEST_REQ", "hunter2")
	code, out, errOut := runCLI(t, "inspect", "--allow-http", "http://127.0.0.1/", "--secret-env", "req=MCPW_TEST_REQ",
		"--grant-clock", "--config-value", "extra=plain", httpProbe())
	require.Equal(t, 0, code, errOut)
	for _, want := range []string{
		"ACCEPTED",
		"grants      secret     req",
		"req = ********",
		`extra = "plain"  (not requested)`,
		"http       http://127.0.0.1/                -> GET,HEAD http://127.0.0.1/",
		"clock      (not requested)                  -> real",
		"random     (not requested)                  -> deterministic",
		"mcpw_v1.http_fetch (function)                 linked (http granted)",
	} {
		require.Contains(t, out, want)
	}
	require.NotContains(t, out+errOut, "hunter2")

	code, out, _ = runCLI(t, "inspect", "--json", "--allow-http", "http://127.0.0.1/", "--secret-env", "req=MCPW_TEST_REQ", httpProbe())
	require.Equal(t, 0, code)
	require.NotContains(t, out, "hunter2")
	var rep runtime.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Contains(t, rep.Grants, runtime.GrantLine{Kind: "secret", Requested: "req", Granted: "req = ********"})
}

func TestInspectShowsRequestsOfRefusedModule(t *testing.T) {
	code, out, _ := runCLI(t, "inspect", httpProbe())
	require.Equal(t, 1, code)
	require.Contains(t, out, "REJECTED")
	require.Contains(t, out, "http http://127.0.0.1/", "requests are read even though the module was refused")
	require.Contains(t, out, "http       http://127.0.0.1/                -> NOT GRANTED")
	require.Contains(t, out, "--allow-http PREFIX")
}

func TestGrantFlagErrors(t *testing.T) {
	t.Setenv("MCPW_TEST_SET", "1")
	for want, args := range map[string][]string{
		"--allow-private-network needs --allow-http": {"--allow-private-network"},
		"MCPW_TEST_UNSET_VARIABLE is not set":        {"--secret-env", "req=MCPW_TEST_UNSET_VARIABLE"},
		"scheme must be http or https":               {"--allow-http", "ftp://h/"},
		`method "DELETE": use GET, HEAD or POST`:     {"--allow-http", "DELETE=https://h/"},
		"by both --config-value and --config-env":    {"--config-value", "k=1", "--config-env", "k=MCPW_TEST_SET"},
		"granted both as config and as a secret":     {"--config-value", "k=1", "--secret-env", "k=MCPW_TEST_SET"},
		"--http-max-response":                        {"--allow-http", "https://h/", "--http-max-response", "lots"},
	} {
		code, out, errOut := runCLI(t, append(append([]string{"inspect"}, args...), httpProbe())...)
		require.NotEqual(t, 0, code, want)
		require.Contains(t, out+errOut, want)
	}
}

func TestGrantFlagsSet(t *testing.T) {
	var got []string
	app := newApp(nil, nil, nil)
	app.Commands = []*cli.Command{{Name: "x", Flags: limitFlags(), Action: func(c *cli.Context) error {
		got = grantFlagsSet(c)
		return nil
	}}}
	require.NoError(t, app.Run([]string{"mcp-wasm", "x", "--grant-clock", "--allow-http", "https://h/", "--timeout", "1s"}))
	require.Equal(t, []string{"--allow-http", "--grant-clock"}, got)
}
