package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testlog"
	"github.com/mcp-wasm/mcp-wasm/server/servertest"
)

// testKey makes cursors reproducible in tests.
var testKey = []byte("0123456789abcdef0123456789abcdef")

// pngBytes is a 1x1 PNG.
var pngBytes = []byte{
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
	0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
	0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
	0x42, 0x60, 0x82,
}

func newLogger() (*slog.Logger, *testlog.Buffer) {
	b := &testlog.Buffer{}
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug})), b
}

// notesProvider is the fixture most tests serve: text, empty text, blob,
// a resource with title/icons/annotations, and a template.
func notesProvider() *servertest.Provider {
	prio, size := 0.0, int64(0)
	title := abi.Resource{
		URI: "notes:///styled", Name: "styled", Title: "Styled note", MIMEType: "text/plain", Size: &size,
		Annotations: &abi.Annotations{Audience: []string{"user"}, Priority: &prio, LastModified: "2026-01-02T03:04:05Z"},
		Icons:       []abi.Icon{{Src: "https://example.com/i.png", MIMEType: "image/png"}},
	}
	empty := ""
	return servertest.New("notes", abi.URIRoot{Scheme: "notes"}).
		AddText("notes:///hello", "text/plain", "Hello, world").
		AddText("notes:///empty", "text/plain", "").
		AddBlob("notes:///logo.png", "image/png", pngBytes).
		AddResource(title, abi.Content{URI: "notes:///styled", MIMEType: "text/plain", Text: &empty}).
		AddTemplate(abi.ResourceTemplate{URITemplate: "notes:///items/{id}", Name: "item", Title: "Item", MIMEType: "application/json"},
			"100", "101", "200")
}

func newServer(t testing.TB, cfg Config) *Server {
	t.Helper()
	if cfg.logger == nil {
		cfg = cfg.WithLogger(slog.New(slog.DiscardHandler))
	}
	s, err := New(cfg.WithCursorKey(testKey).WithImplementation("mcp-wasm-test", "0.0.0"))
	require.NoError(t, err)
	return s
}

// connect connects a go-sdk client to s over in-memory transports, asking
// for version ("" = newest, i.e. stateless 2026-07-28).
func connect(t testing.TB, s *Server, version string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.mcp.Connect(ctx, st, nil)
	require.NoError(t, err)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"},
		&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// rpcError returns the JSON-RPC error inside err.
func rpcError(t testing.TB, err error) *jsonrpc.Error {
	t.Helper()
	require.Error(t, err)
	var werr *jsonrpc.Error
	require.True(t, errors.As(err, &werr), "not a JSON-RPC error: %v", err)
	return werr
}

// funcProvider is a Provider built from functions, for misbehaving
// providers. Unset functions return abi.ErrUnsupported.
type funcProvider struct {
	desc      abi.Describe
	list      func(ctx context.Context, cursor string) (*abi.ListResult, error)
	templates func(ctx context.Context, cursor string) (*abi.TemplatesResult, error)
	read      func(ctx context.Context, uri string) (*abi.ReadResult, error)
	complete  func(ctx context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error)
}

func newFuncProvider(name, scheme string) *funcProvider {
	return &funcProvider{desc: abi.Describe{
		Name: name, Version: "1", URISpace: []abi.URIRoot{{Scheme: scheme}},
		Operations: []string{abi.OpList, abi.OpTemplates, abi.OpRead, abi.OpComplete},
	}}
}

func (f *funcProvider) Describe() abi.Describe { return f.desc }

func (f *funcProvider) List(ctx context.Context, cursor string) (*abi.ListResult, error) {
	if f.list == nil {
		return nil, abi.ErrUnsupported
	}
	return f.list(ctx, cursor)
}

func (f *funcProvider) Templates(ctx context.Context, cursor string) (*abi.TemplatesResult, error) {
	if f.templates == nil {
		return nil, abi.ErrUnsupported
	}
	return f.templates(ctx, cursor)
}

func (f *funcProvider) Read(ctx context.Context, uri string) (*abi.ReadResult, error) {
	if f.read == nil {
		return nil, abi.ErrUnsupported
	}
	return f.read(ctx, uri)
}

func (f *funcProvider) Complete(ctx context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error) {
	if f.complete == nil {
		return nil, abi.ErrUnsupported
	}
	return f.complete(ctx, req)
}

// listAll pages through resources/list and returns every URI in order and
// the number of pages.
func listAll(t testing.TB, cs *mcp.ClientSession) ([]string, int) {
	t.Helper()
	var uris []string
	pages, cursor := 0, ""
	for {
		res, err := cs.ListResources(context.Background(), &mcp.ListResourcesParams{Cursor: cursor})
		require.NoError(t, err)
		pages++
		require.Less(t, pages, 10_000, "listing does not end")
		for _, r := range res.Resources {
			uris = append(uris, r.URI)
		}
		if res.NextCursor == "" {
			return uris, pages
		}
		cursor = res.NextCursor
	}
}

// connectStdio serves s with ServeStdio on pipes (the stdio transport, its
// envelope checks and framing included) and connects a go-sdk client
// speaking version ("" = newest) over them. The server ends with the test.
func connectStdio(t testing.TB, s *Server, version string) *mcp.ClientSession {
	t.Helper()
	toServerR, toServerW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- s.ServeStdio(context.Background(), toServerR, toClientW)
		_ = toClientW.Close()
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"},
		&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: toClientR, Writer: toServerW},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.Close()
		_ = toServerW.Close()
		require.NoError(t, <-done)
	})
	return cs
}
