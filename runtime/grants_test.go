package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/egress"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

func TestGrantsValidateMore(t *testing.T) {
	ok := Grants{Config: map[string]string{"a": "1"}, Secrets: map[string]string{"token": "s"}, HTTP: HTTPGrant{Allow: []HTTPRule{{Prefix: "https://h/"}}}, Clock: true, Random: true}
	require.NoError(t, testkit.Limits(NewProviderConfig()).WithGrants(ok).validate())
	for name, g := range map[string]Grants{
		"bad secret key": {Secrets: map[string]string{"a b": "s"}},
		"key twice":      {Config: map[string]string{"k": "1"}, Secrets: map[string]string{"k": "2"}},
		"bad http":       {HTTP: HTTPGrant{Allow: []HTTPRule{{Prefix: "gopher://h/"}}}},
	} {
		require.ErrorIs(t, testkit.Limits(NewProviderConfig()).WithGrants(g).validate(), ErrConfig, name)
	}
}

func TestGrantsCloneIsDeep(t *testing.T) {
	g := Grants{
		Dirs: []DirGrant{{HostPath: "/a"}}, Config: map[string]string{"k": "v"}, Secrets: map[string]string{"s": "x"},
		HTTP: HTTPGrant{Allow: []HTTPRule{{Prefix: "https://h/", Methods: []string{"GET"}}}},
	}
	cfg := testkit.Limits(NewProviderConfig()).WithGrants(g)
	g.Dirs[0].HostPath, g.Config["k"], g.Secrets["s"], g.HTTP.Allow[0].Methods[0] = "/b", "w", "y", "POST"
	got := cfg.Grants()
	require.Equal(t, "/a", got.Dirs[0].HostPath)
	require.Equal(t, "v", got.Config["k"])
	require.Equal(t, "x", got.Secrets["s"])
	require.Equal(t, "GET", got.HTTP.Allow[0].Methods[0])
	require.Equal(t, map[string]string{"k": "v", "s": "x"}, cfg.configValues, "config_get reads both maps")
}

// TestGrantsNeverPrintSecrets: however a Grants is printed or logged, no
// config or secret value appears.
func TestGrantsNeverPrintSecrets(t *testing.T) {
	g := Grants{Config: map[string]string{"url": "plain-value"}, Secrets: map[string]string{"token": "hunter2"}}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("loaded", "grants", g)
	slog.New(slog.NewTextHandler(&logs, nil)).Info("loaded", "grants", g)
	for _, s := range []string{fmt.Sprint(g), fmt.Sprintf("%v %+v %s", g, g, g), logs.String()} {
		require.NotContains(t, s, "hunter2")
		require.NotContains(t, s, "plain-value")
		require.Contains(t, s, "secret token="+masked)
	}
}

func TestGrantReport(t *testing.T) {
	d := &abi.Describe{Requests: &abi.Requests{
		Filesystem: []abi.FSRequest{{Path: "/data"}, {Path: "/cfg"}},
		Config: []abi.ConfigRequest{
			{Key: "base_url", Required: true}, {Key: "token", Secret: true}, {Key: "api_key", Secret: true}, {Key: "missing", Required: true},
		},
		HTTP:  []abi.HTTPRequest{{Prefix: "https://api.example.com/v1/"}, {Prefix: "https://other.example.com/"}},
		Clock: true,
	}}
	base := t.TempDir()
	docs, app, x := filepath.Join(base, "docs"), filepath.Join(base, "app.json"), filepath.Join(base, "x")
	require.NoError(t, os.MkdirAll(docs, 0o755))
	require.NoError(t, os.MkdirAll(x, 0o755))
	require.NoError(t, os.WriteFile(app, nil, 0o644))
	link := filepath.Join(base, "link")
	require.NoError(t, os.Symlink(docs, link))
	g := Grants{
		Dirs: []DirGrant{{HostPath: link}, {HostPath: app, GuestPath: "/cfg"}, {HostPath: x, GuestPath: "/data"},
			{HostPath: filepath.Join(base, "gone")}},
		Config:  map[string]string{"base_url": "https://api.example.com/v1/", "api_key": "PLAINSECRET", "extra": "e"},
		Secrets: map[string]string{"token": "hunter2", "unasked": "s3"},
		HTTP:    HTTPGrant{Allow: []HTTPRule{{Prefix: "https://api.example.com/"}, {Prefix: "https://more.example.com/"}}},
		Random:  true,
	}
	lines := GrantReport(d, g)
	var text []string
	for _, l := range lines {
		text = append(text, fmt.Sprintf("%s|%s|%s|%s", l.Kind, l.Requested, l.Granted, l.Note))
	}
	all := strings.Join(text, "\n")
	for _, secret := range []string{"hunter2", "PLAINSECRET", "s3"} {
		require.NotContains(t, all, secret)
	}
	for _, want := range []string{
		"filesystem|/data (read-only)|" + x + " mounted at /data (read-only)|",
		"filesystem|/cfg (read-only)|" + app + " mounted at /cfg/app.json (read-only, this file only)|",
		"filesystem||" + link + " mounted at " + filepath.ToSlash(docs) + " (read-only)|not requested",
		"filesystem||" + filepath.Join(base, "gone") + " (read-only)|not mounted: ",
		`config|base_url|base_url = "https://api.example.com/v1/"|`,
		"secret|token|token = " + masked + "|",
		"secret|api_key|api_key = " + masked + "|a secret granted as plain config",
		"config|missing||required but not granted",
		`config||extra = "e"|not requested`,
		"secret||unasked = " + masked + "|not requested",
		"http|https://api.example.com/v1/|GET,HEAD https://api.example.com/|",
		"http|https://other.example.com/||",
		"http||GET,HEAD https://more.example.com/|not requested",
		"http||public addresses only|",
		"clock|real|fake|",
		"random||crypto/rand|",
	} {
		require.Contains(t, all, want)
	}
	require.Len(t, GrantReport(nil, Grants{}), 2, "nothing requested or granted: clock and random rows only")

	// Requests are informational: one nothing is mounted at says how to
	// map a grant there; a request for "/" takes any grant.
	alone := GrantReport(&abi.Describe{Requests: &abi.Requests{Filesystem: []abi.FSRequest{{Path: "/data"}}}}, Grants{Dirs: []DirGrant{{HostPath: docs}}})
	require.Equal(t, "/data (read-only)", alone[0].Requested)
	require.Contains(t, alone[0].Note, `map a grant there with "guest" in a config file`)
	anyDir := GrantReport(&abi.Describe{Requests: &abi.Requests{Filesystem: []abi.FSRequest{{Path: "/"}}}}, Grants{Dirs: []DirGrant{{HostPath: docs}, {HostPath: x}}})
	require.Equal(t, GrantLine{Kind: "filesystem", Requested: "any directory (read-only)", Granted: docs + " mounted at " + filepath.ToSlash(docs) + " (read-only)"}, anyDir[0])
	require.Equal(t, "any directory (read-only)", anyDir[1].Requested)
	require.Empty(t, anyDir[1].Note)
	none := GrantReport(&abi.Describe{Requests: &abi.Requests{Filesystem: []abi.FSRequest{{Path: "/"}}}}, Grants{})
	require.Equal(t, GrantLine{Kind: "filesystem", Requested: "any directory (read-only)"}, none[0])
}

// TestEgressClosedWithProvider: the egress client's idle connections are
// dropped when the provider's wazero runtime closes: the server sees the
// kept-alive connection of a request closed.
func TestEgressClosedWithProvider(t *testing.T) {
	ctx := context.Background()
	var closed atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateClosed {
			closed.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	e := egress.New(HTTPGrant{Allow: []HTTPRule{{Prefix: srv.URL + "/"}}, AllowPrivateNetwork: true}.egressGrant(), slog.Default)
	r := wazero.NewRuntime(ctx)
	require.NoError(t, instantiateHostModules(ctx, r, e))
	req, err := json.Marshal(abi.FetchRequest{URL: srv.URL + "/x"})
	require.NoError(t, err)
	var resp abi.FetchResponse
	require.NoError(t, json.Unmarshal(e.Fetch(ctx, req, 1), &resp))
	require.Nil(t, resp.Error)
	require.Equal(t, 200, resp.Status)
	require.Zero(t, closed.Load(), "the connection is kept alive")
	require.NoError(t, r.Close(ctx))
	testkit.Eventually(t, func() bool { return closed.Load() == 1 }, "the idle connection was not closed")
}

func TestRedact(t *testing.T) {
	cfg := testkit.Limits(NewProviderConfig()).WithGrants(Grants{Secrets: map[string]string{"a": "abcd", "b": "abcdef", "short": "on"}})
	require.Equal(t, "x "+masked+" y "+masked+" on", cfg.redact("x abcdef y abcd on"))
	err := domainError("read", []byte(`{"code":"internal","message":"bad token abcdef"}`), cfg.redact)
	require.ErrorIs(t, err, abi.ErrProviderInternal)
	require.NotContains(t, err.Error(), "abcd")
}

func TestHTTPGrantValidate(t *testing.T) {
	require.NoError(t, HTTPGrant{}.validate())
	for name, g := range map[string]HTTPGrant{
		"settings without prefix": {AllowPrivateNetwork: true},
		"bad prefix":              {Allow: []HTTPRule{{Prefix: "ftp://h/"}}},
		"negative cap":            {Allow: []HTTPRule{{Prefix: "https://h/"}}, MaxResponseBytes: -1},
		"huge cap":                {Allow: []HTTPRule{{Prefix: "https://h/"}}, MaxResponseBytes: 1 << 30},
		"huge request":            {Allow: []HTTPRule{{Prefix: "https://h/"}}, MaxRequestBytes: 1 << 30},
		"negative timeout":        {Allow: []HTTPRule{{Prefix: "https://h/"}}, Timeout: -time.Second},
	} {
		require.ErrorIs(t, g.validate(), ErrConfig, name)
	}
}
