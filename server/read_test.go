package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/server/servertest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// TestServer_readHostileURIs sends hostile URIs through a real client to a
// provider that records every URI it sees: each is refused with -32602 (or
// not found) and none reaches the provider.
func TestServer_readHostileURIs(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	files := servertest.New("files", abi.URIRoot{Scheme: "file", PathPrefix: "/srv/"}).
		AddText("file:///srv/ok.txt", "text/plain", "ok").
		WithIntercept(func(_ context.Context, op, arg string) error {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, arg)
			return nil
		})
	s := newServer(t, NewConfig().WithProviders(files))
	cs := connect(t, s, "2025-11-25")

	tests := []struct {
		uri      string
		wantCode int64
	}{
		{"file:///srv/../etc/passwd", jsonrpc.CodeInvalidParams},
		{"file:///srv/%2e%2e/etc/passwd", jsonrpc.CodeInvalidParams},
		{"file:///srv/..%2Fetc/passwd", jsonrpc.CodeInvalidParams},
		{"file:///srv/ok.txt%00.png", jsonrpc.CodeInvalidParams},
		{`file:///srv/..\..\etc\passwd`, jsonrpc.CodeInvalidParams},
		{"file:///srv/a%5c..%5cb", jsonrpc.CodeInvalidParams},
		{"file:///srv/./ok.txt", jsonrpc.CodeInvalidParams},
		{"file:///srv/ok.txt\n", jsonrpc.CodeInvalidParams},
		{"file:///srv/ok.txt\u202e", jsonrpc.CodeInvalidParams}, // a format character (BiDi override): abi.ParseURI refuses it
		{"file:///srv/" + strings.Repeat("a", abi.MaxURILength), jsonrpc.CodeInvalidParams},
		{"file://user@/srv/ok.txt", jsonrpc.CodeInvalidParams},
		{"file:///srv/ok.txt#x", jsonrpc.CodeInvalidParams},
		{"", jsonrpc.CodeInvalidParams},
		{"srv/ok.txt", jsonrpc.CodeInvalidParams},
		{"file:///etc/passwd", codeResourceNotFound},
		{"file:///srvx/ok.txt", codeResourceNotFound},
		{"file://evil.example/srv/ok.txt", codeResourceNotFound},
		{"notes:///srv/ok.txt", codeResourceNotFound},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%q", tc.uri), func(t *testing.T) {
			_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: tc.uri})
			require.Equal(t, tc.wantCode, rpcError(t, err).Code)
		})
	}
	mu.Lock()
	defer mu.Unlock()
	// Only well-formed URIs inside the space reach the provider. A root
	// without an authority owns every authority (abi.URIRoot), so the
	// provider sees evil.example and answers not found itself.
	require.Empty(t, seen, "a URI with a host is outside a root without authority")
}

// TestServer_readRouting checks that each URI goes to the one provider
// owning it, normalized, and that a provider without read is not found.
func TestServer_readRouting(t *testing.T) {
	a := servertest.New("a", abi.URIRoot{Scheme: "https", Authority: "a.example"}).AddText("https://a.example/x", "text/plain", "from a")
	b := servertest.New("b", abi.URIRoot{Scheme: "https", Authority: "b.example"}).AddText("https://b.example/x", "text/plain", "from b")
	c := servertest.New("c", abi.URIRoot{Scheme: "c"}).AddText("c:///x", "text/plain", "from c").WithOperations(abi.OpList)
	cs := connect(t, newServer(t, NewConfig().WithProviders(a, b, c)), "2025-06-18")
	for uri, want := range map[string]string{"https://a.example/x": "from a", "HTTPS://B.EXAMPLE/x": "from b"} {
		res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
		require.NoError(t, err)
		require.Equal(t, want, res.Contents[0].Text)
	}
	_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "c:///x"})
	require.Equal(t, int64(codeResourceNotFound), rpcError(t, err).Code)
}

// TestServer_readErrors maps provider failures per revision and checks that
// no provider text reaches the client while the log names the provider.
func TestServer_readErrors(t *testing.T) {
	const secret = "guest-secret-text"
	tests := []struct {
		name     string
		read     func(ctx context.Context, uri string) (*abi.ReadResult, error)
		legacy   int64
		modern   int64
		wantLog  string
		wantData bool
	}{
		{"not found", errRead(fmt.Errorf("%w: %s", abi.ErrNotFound, secret)), codeResourceNotFound, jsonrpc.CodeInvalidParams, "", true},
		{"unsupported", errRead(abi.ErrUnsupported), codeResourceNotFound, jsonrpc.CodeInvalidParams, "", true},
		{"invalid params", errRead(fmt.Errorf("%w: %s", abi.ErrInvalidParams, secret)), jsonrpc.CodeInvalidParams, jsonrpc.CodeInvalidParams, "", false},
		{"provider internal", errRead(fmt.Errorf("%w: %s", abi.ErrProviderInternal, secret)), jsonrpc.CodeInternalError, jsonrpc.CodeInternalError, secret, false},
		{"trap", errRead(fmt.Errorf("%w: %s", abi.ErrTrap, secret)), jsonrpc.CodeInternalError, jsonrpc.CodeInternalError, "provider trapped", false},
		{"timeout", func(ctx context.Context, _ string) (*abi.ReadResult, error) {
			<-ctx.Done()
			return nil, fmt.Errorf("%w: %w", abi.ErrTimeout, ctx.Err())
		}, jsonrpc.CodeInternalError, jsonrpc.CodeInternalError, "timed out", false},
		{"panic", func(context.Context, string) (*abi.ReadResult, error) { panic(secret) },
			jsonrpc.CodeInternalError, jsonrpc.CodeInternalError, "provider panicked", false},
		{"empty contents", okRead(&abi.ReadResult{Contents: []abi.Content{}}), jsonrpc.CodeInternalError, jsonrpc.CodeInternalError, "no contents", false},
		{"nil result", okRead(nil), jsonrpc.CodeInternalError, jsonrpc.CodeInternalError, "no contents", false},
		{"text and blob", okRead(&abi.ReadResult{Contents: []abi.Content{{URI: "x:///a", Text: ptr(secret), Blob: ptr("")}}}),
			jsonrpc.CodeInternalError, jsonrpc.CodeInternalError, "exactly one", false},
		{"foreign contents", okRead(&abi.ReadResult{Contents: []abi.Content{{URI: "y:///a", Text: ptr(secret)}}}),
			jsonrpc.CodeInternalError, jsonrpc.CodeInternalError, "outside", false},
	}
	for _, tc := range tests {
		for _, version := range []string{"2025-11-25", "2026-07-28"} {
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				log, logs := newLogger()
				f := newFuncProvider("x", "x")
				f.read = tc.read
				s := newServer(t, NewConfig().WithProviders(f).WithLogger(log).WithCallTimeout(50*time.Millisecond))
				tr := newTranscript(t, s)
				tr.open(version)
				resp := tr.call("resources/read", map[string]any{"uri": "x:///a"})
				var werr jsonrpc.Error
				require.NoError(t, json.Unmarshal(resp["error"], &werr))
				want := tc.legacy
				if version == "2026-07-28" {
					want = tc.modern
				}
				require.Equal(t, want, werr.Code)
				require.NotContains(t, string(resp["error"]), secret)
				if tc.wantData {
					require.JSONEq(t, `{"uri":"x:///a"}`, string(werr.Data))
				}
				if tc.wantLog != "" {
					require.Contains(t, logs.String(), "provider=x")
					require.Contains(t, logs.String(), tc.wantLog)
				}
			})
		}
	}
}

func errRead(err error) func(context.Context, string) (*abi.ReadResult, error) {
	return func(context.Context, string) (*abi.ReadResult, error) { return nil, err }
}

func okRead(res *abi.ReadResult) func(context.Context, string) (*abi.ReadResult, error) {
	return func(context.Context, string) (*abi.ReadResult, error) { return res, nil }
}

func ptr[T any](v T) *T { return &v }

// TestServer_readCacheHints checks ttlMs and cacheScope on 2026-07-28: the
// result's hint, else the provider's describe hint, else 0/public.
func TestServer_readCacheHints(t *testing.T) {
	text := "t"
	tests := []struct {
		name     string
		describe *abi.CacheHint
		result   *abi.CacheHint
		want     string
	}{
		{"none", nil, nil, `"ttlMs":0,"cacheScope":"public"`},
		{"describe", &abi.CacheHint{TTLMs: 5000, Scope: abi.ScopePrivate}, nil, `"ttlMs":5000,"cacheScope":"private"`},
		{"result wins", &abi.CacheHint{TTLMs: 5000, Scope: abi.ScopePrivate}, &abi.CacheHint{TTLMs: 7, Scope: abi.ScopePublic}, `"ttlMs":7,"cacheScope":"public"`},
		{"bad scope", nil, &abi.CacheHint{TTLMs: -3, Scope: "world"}, `"ttlMs":0,"cacheScope":"public"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFuncProvider("x", "x")
			f.desc.Cache = tc.describe
			f.read = okRead(&abi.ReadResult{Contents: []abi.Content{{URI: "x:///a", Text: &text}}, Cache: tc.result})
			tr := newTranscript(t, newServer(t, NewConfig().WithProviders(f)))
			tr.open("2026-07-28")
			resp := tr.call("resources/read", map[string]any{"uri": "x:///a"})
			require.Contains(t, string(resp["result"]), tc.want)
		})
	}
}
