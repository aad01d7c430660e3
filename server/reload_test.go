package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/server/servertest"
)

func readText(t testing.TB, cs *mcp.ClientSession, uri string) string {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	return res.Contents[0].Text
}

func TestSetProviders_swapsTheSet(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	cs := connect(t, s, "2025-06-18")
	require.Equal(t, "Hello, world", readText(t, cs, "notes:///hello"))

	docs := servertest.New("docs", abi.URIRoot{Scheme: "docs"}).AddText("docs:///a", "text/plain", "A")
	drained, err := s.SetProviders(docs)
	require.NoError(t, err)
	<-drained // nothing was in flight

	require.Equal(t, "A", readText(t, cs, "docs:///a"))
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "notes:///hello"})
	require.Equal(t, int64(-32002), rpcError(t, err).Code, "the old provider is gone")
	uris, _ := listAll(t, cs)
	require.Equal(t, []string{"docs:///a"}, uris)
}

func TestSetProviders_refusesABadSetAndKeepsTheOld(t *testing.T) {
	tests := []struct {
		name string
		set  []Provider
		want error
	}{
		{"overlap", []Provider{
			servertest.New("a", abi.URIRoot{Scheme: "x"}),
			servertest.New("b", abi.URIRoot{Scheme: "x", PathPrefix: "/sub/"}),
		}, ErrOverlap},
		{"duplicate name", []Provider{
			servertest.New("a", abi.URIRoot{Scheme: "x"}),
			servertest.New("a", abi.URIRoot{Scheme: "y"}),
		}, ErrDuplicateName},
		{"invalid describe", []Provider{servertest.New("", abi.URIRoot{Scheme: "x"})}, ErrInvalidDescribe},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, NewConfig().WithProviders(notesProvider()))
			cs := connect(t, s, "2025-06-18")
			drained, err := s.SetProviders(tt.set...)
			require.ErrorIs(t, err, tt.want)
			require.Nil(t, drained)
			require.Equal(t, "Hello, world", readText(t, cs, "notes:///hello"))
		})
	}
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	_, err := s.SetProviders(nil)
	require.ErrorContains(t, err, "provider 0 is nil")
}

func TestSetProviders_inFlightCallsFinishOnTheOldSet(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	old := servertest.New("notes", abi.URIRoot{Scheme: "notes"}).AddText("notes:///n", "text/plain", "old").
		WithIntercept(func(ctx context.Context, op, _ string) error {
			if op == abi.OpRead {
				once.Do(func() { close(entered) })
				<-release
			}
			return nil
		})
	s := newServer(t, NewConfig().WithProviders(old))
	cs := connect(t, s, "2025-06-18")

	got := make(chan string, 1)
	go func() { got <- readText(t, cs, "notes:///n") }()
	<-entered
	drained, err := s.SetProviders(servertest.New("notes", abi.URIRoot{Scheme: "notes"}).AddText("notes:///n", "text/plain", "new"))
	require.NoError(t, err)
	require.Equal(t, "new", readText(t, cs, "notes:///n"), "new requests see the new set at once")
	select {
	case <-drained:
		t.Fatal("the old set drained while a call was in flight on it")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	require.Equal(t, "old", <-got, "the call in flight finished on the old provider")
	<-drained
}

// TestSetProviders_hammer swaps between two sets serving the same URI while
// readers read it: every read succeeds, and a retired set's provider is
// never called after its drain channel closed.
func TestSetProviders_hammer(t *testing.T) {
	const swaps = 200
	var closedCalls atomic.Int64
	gen := func(i int) (*servertest.Provider, *atomic.Bool) {
		closed := &atomic.Bool{}
		p := servertest.New("notes", abi.URIRoot{Scheme: "notes"}).AddText("notes:///n", "text/plain", fmt.Sprint(i)).
			WithIntercept(func(context.Context, string, string) error {
				if closed.Load() {
					closedCalls.Add(1)
					return errors.New("called after close")
				}
				return nil
			})
		return p, closed
	}
	first, firstClosed := gen(0)
	s := newServer(t, NewConfig().WithProviders(first))
	cs := connect(t, s, "2025-06-18")

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var reads, failures atomic.Int64
	for range 4 {
		wg.Go(func() {
			for ctx.Err() == nil {
				if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes:///n"}); err != nil && ctx.Err() == nil {
					failures.Add(1)
				}
				reads.Add(1)
			}
		})
	}
	prevClosed := firstClosed
	for i := 1; i <= swaps; i++ {
		p, closed := gen(i)
		drained, err := s.SetProviders(p)
		require.NoError(t, err)
		go func(c *atomic.Bool) { <-drained; c.Store(true) }(prevClosed)
		prevClosed = closed
	}
	time.Sleep(20 * time.Millisecond)
	cancel()
	wg.Wait()
	require.Zero(t, failures.Load(), "reads failed during swaps (%d reads)", reads.Load())
	require.Zero(t, closedCalls.Load(), "a retired provider was called after its set drained")
	require.Positive(t, reads.Load())
}
