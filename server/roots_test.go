package server

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// TestRoots_stdio: over stdio the server asks a client with the roots
// capability for its roots once initialized and again after every
// notifications/roots/list_changed, handing each whole list to the
// RootsFunc in order; the Server ends the asking goroutine with the
// session.
func TestRoots_stdio(t *testing.T) {
	got := make(chan []Root, 4)
	s := newServer(t, NewConfig().WithProviders(notesProvider()).WithRoots(func(_ context.Context, roots []Root) { got <- roots }))

	toServerR, toServerW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- s.ServeStdio(context.Background(), toServerR, toClientW)
		_ = toClientW.Close()
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "roots-test", Version: "1"}, nil)
	//lint:ignore SA1019 roots are what WithRoots reads
	client.AddRoots(&mcp.Root{URI: "file:///work/a", Name: "a"})
	cs, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: toClientR, Writer: toServerW},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)

	require.Equal(t, []Root{{URI: "file:///work/a", Name: "a"}}, <-got)
	//lint:ignore SA1019 roots are what WithRoots reads
	client.AddRoots(&mcp.Root{URI: "file:///work/b"})
	require.ElementsMatch(t, []Root{{URI: "file:///work/a", Name: "a"}, {URI: "file:///work/b"}}, <-got)

	require.NoError(t, cs.Close())
	_ = toServerW.Close()
	require.NoError(t, <-done) // and the asking goroutine has returned
}

// TestRoots_noCapability: a client that declares no roots capability is
// never asked (go-sdk would answer roots/list with an error): the server
// says so in its log and hands nothing to the RootsFunc.
func TestRoots_noCapability(t *testing.T) {
	called := make(chan struct{}, 1)
	lines := make(chan string, 64)
	log := slog.New(slog.NewTextHandler(chanWriter(lines), nil))
	s := newServer(t, NewConfig().WithProviders(notesProvider()).WithLogger(log).
		WithRoots(func(context.Context, []Root) { called <- struct{}{} }))
	cs := connectStdio(t, s, "2025-11-25") // declares no capabilities
	for line := range lines {
		if strings.Contains(line, "client announces no roots") {
			break
		}
	}
	select {
	case <-called:
		t.Fatal("a client without the roots capability was asked for roots")
	default:
	}
	_, err := cs.ListResources(t.Context(), nil)
	require.NoError(t, err)
}

// chanWriter sends every write (a log line) to its channel.
type chanWriter chan<- string

func (w chanWriter) Write(p []byte) (int, error) {
	select {
	case w <- string(p):
	default: // the test has stopped reading
	}
	return len(p), nil
}
