package main

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// feedProvider is a provider whose change feed only records that it runs.
type feedProvider struct {
	name    string
	changes bool
	running atomic.Int32
	started atomic.Int32
}

func (f *feedProvider) Describe() abi.Describe {
	ops := []string{abi.OpRead}
	if f.changes {
		ops = append(ops, abi.OpChanges)
	}
	return abi.Describe{Name: f.name, Version: "1", URISpace: []abi.URIRoot{{Scheme: f.name}}, Operations: ops}
}

func (f *feedProvider) List(context.Context, string) (*abi.ListResult, error) {
	return nil, abi.ErrUnsupported
}

func (f *feedProvider) Templates(context.Context, string) (*abi.TemplatesResult, error) {
	return nil, abi.ErrUnsupported
}

func (f *feedProvider) Read(context.Context, string) (*abi.ReadResult, error) {
	return nil, abi.ErrNotFound
}

func (f *feedProvider) Complete(context.Context, abi.CompleteRequest) (*abi.CompleteResult, error) {
	return nil, abi.ErrUnsupported
}

func (f *feedProvider) Supports(op string) bool {
	return op == abi.OpRead || (f.changes && op == abi.OpChanges)
}

func (f *feedProvider) WatchChanges(ctx context.Context, _ runtime.ChangeFeedConfig, _ func(*abi.ChangesResult)) error {
	f.started.Add(1)
	f.running.Add(1)
	defer f.running.Add(-1)
	<-ctx.Done()
	return nil
}

// TestChangeFeeds_followServedSet: a feed runs for each served provider
// that declares changes, and the feeds follow a provider swap (hot reload)
// and stop on close.
func TestChangeFeeds_followServedSet(t *testing.T) {
	a, b := &feedProvider{name: "alpha", changes: true}, &feedProvider{name: "beta", changes: true}
	static := &feedProvider{name: "gamma"}
	srv, err := server.New(server.NewConfig().WithProviders(a, static).WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	feeds := startChangeFeeds(t.Context(), srv, slog.New(slog.DiscardHandler))
	require.Eventually(t, func() bool { return a.running.Load() == 1 }, 10*time.Second, 5*time.Millisecond)
	require.Zero(t, static.started.Load(), "no feed without the changes operation")

	_, err = srv.SetProviders(b, static)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return a.running.Load() == 0 && b.running.Load() == 1 }, 10*time.Second, 5*time.Millisecond)

	feeds.close()
	require.Zero(t, b.running.Load())
	require.Equal(t, int32(1), a.started.Load(), "one feed per provider")
	require.Equal(t, int32(1), b.started.Load())
}
