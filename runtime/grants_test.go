package runtime

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
// dropped when the provider's wazero runtime closes.
func TestEgressClosedWithProvider(t *testing.T) {
	ctx := context.Background()
	e := newEgress(HTTPGrant{Allow: []HTTPRule{{Prefix: "https://h/"}}}, slog.Default)
	closer := &closeCounter{}
	e.client.Transport = closer
	r := wazero.NewRuntime(ctx)
	require.NoError(t, instantiateHostModules(ctx, r, e))
	require.Zero(t, closer.n)
	require.NoError(t, r.Close(ctx))
	require.Equal(t, 1, closer.n)
}

type closeCounter struct{ n int }

func (c *closeCounter) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, http.ErrNotSupported
}
func (c *closeCounter) CloseIdleConnections() { c.n++ }

func TestRedact(t *testing.T) {
	cfg := testkit.Limits(NewProviderConfig()).WithGrants(Grants{Secrets: map[string]string{"a": "abcd", "b": "abcdef", "short": "on"}})
	require.Equal(t, "x "+masked+" y "+masked+" on", cfg.redact("x abcdef y abcd on"))
	err := domainError("read", []byte(`{"code":"internal","message":"bad token abcdef"}`), cfg.redact)
	require.ErrorIs(t, err, abi.ErrProviderInternal)
	require.NotContains(t, err.Error(), "abcd")
}
