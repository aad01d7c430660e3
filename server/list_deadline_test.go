package server

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// pagedProvider lists pages of one resource each ("p1", "p2", ...), the
// cursor of page i being "i". hook, when set, runs first in every call.
func pagedProvider(name string, pages int, hook func(ctx context.Context, cursor string) error) *funcProvider {
	p := newFuncProvider(name, name)
	p.list = func(ctx context.Context, cursor string) (*abi.ListResult, error) {
		if hook != nil {
			if err := hook(ctx, cursor); err != nil {
				return nil, err
			}
		}
		i := 1
		if cursor != "" {
			fmt.Sscan(cursor, &i)
		}
		res := &abi.ListResult{Resources: []abi.Resource{{URI: fmt.Sprintf("%s:///p%d", name, i), Name: fmt.Sprint(i)}}}
		if i < pages {
			res.NextCursor = fmt.Sprint(i + 1)
		}
		return res, nil
	}
	return p
}

// TestList_requestDeadlineResumes: a provider call started after others
// in the same page gets only the request's remaining time, not a fresh
// call timeout; when it is cut, the page returns what it has with a cursor
// that asks that provider page again. Before, the call had its own whole
// timeout, failed, and the provider was skipped: its later pages were lost.
func TestList_requestDeadlineResumes(t *testing.T) {
	const timeout = 200 * time.Millisecond
	var mu sync.Mutex
	stalled := false
	var left time.Duration
	p := pagedProvider("slow", 3, func(ctx context.Context, cursor string) error {
		mu.Lock()
		first := cursor == "2" && !stalled
		if first {
			stalled = true
			d, _ := ctx.Deadline()
			left = time.Until(d)
		}
		mu.Unlock()
		if first { // page 2 hangs once, until its deadline
			<-ctx.Done()
			return fmt.Errorf("%w: %w", abi.ErrTimeout, ctx.Err())
		}
		return nil
	})
	log, buf := newLogger()
	s := newServer(t, NewConfig().WithProviders(p).WithLogger(log).WithCallTimeout(timeout).WithRequestTimeout(timeout))
	uris, pages := listAll(t, connect(t, s, "2025-11-25"))
	require.Equal(t, []string{"slow:///p1", "slow:///p2", "slow:///p3"}, uris, "nothing lost, nothing twice")
	require.Equal(t, 2, pages, "the cut page ended early and the next one resumed")
	require.Less(t, left, timeout, "a call started late gets only the time left")
	require.NotContains(t, buf.String(), "left out", "a provider cut by the request deadline is not skipped")
}

// TestList_requestDeadlineBoundsCalls: a provider that answers only at its
// deadline, whatever it is told, holds a page for one request timeout, not
// for up to 64 call timeouts.
func TestList_requestDeadlineBoundsCalls(t *testing.T) {
	const timeout = 20 * time.Millisecond
	var mu sync.Mutex
	calls := 0
	p := pagedProvider("late", 1000, func(ctx context.Context, _ string) error {
		mu.Lock()
		calls++
		mu.Unlock()
		<-ctx.Done()
		return nil // answers anyway
	})
	s := newServer(t, NewConfig().WithProviders(p).WithCallTimeout(timeout).WithRequestTimeout(timeout))
	cs := connect(t, s, "2025-11-25")
	cursor := ""
	for page := 1; page <= 3; page++ {
		res, err := cs.ListResources(t.Context(), &mcp.ListResourcesParams{Cursor: cursor})
		require.NoError(t, err)
		require.Len(t, res.Resources, 1, "the page returns what it has")
		require.Equal(t, fmt.Sprintf("late:///p%d", page), res.Resources[0].URI)
		mu.Lock()
		require.Equal(t, page, calls, "one call per page: the request's time was used up")
		mu.Unlock()
		cursor = res.NextCursor
	}
}

// TestList_requestDeadlineSkipsHungProvider: a provider whose first call
// of a page uses the whole request deadline is skipped, so that listing
// moves on, and the providers after it are listed.
func TestList_requestDeadlineSkipsHungProvider(t *testing.T) {
	const timeout = 50 * time.Millisecond
	hung := pagedProvider("hung", 3, func(ctx context.Context, _ string) error {
		<-ctx.Done()
		return fmt.Errorf("%w: %w", abi.ErrTimeout, ctx.Err())
	})
	log, buf := newLogger()
	s := newServer(t, NewConfig().WithProviders(hung, pagedProvider("ok", 2, nil)).WithLogger(log).
		WithCallTimeout(timeout).WithRequestTimeout(timeout))
	uris, _ := listAll(t, connect(t, s, "2026-07-28"))
	require.Equal(t, []string{"ok:///p1", "ok:///p2"}, uris)
	require.Contains(t, buf.String(), "did not answer within the request deadline")
}

func TestConfig_requestTimeout(t *testing.T) {
	_, err := New(NewConfig().WithCallTimeout(time.Second).WithRequestTimeout(time.Millisecond))
	require.ErrorContains(t, err, "give a request timeout of at least 1s")
	s, err := New(NewConfig().WithCallTimeout(time.Minute))
	require.NoError(t, err)
	require.Equal(t, time.Minute, s.cfg.requestTimeout, "the default grows to the call timeout")
	s, err = New(NewConfig())
	require.NoError(t, err)
	require.Equal(t, DefaultRequestTimeout, s.cfg.requestTimeout)
}

// TestList_pageTimeReturnsPartialPage: a provider that answers one item per
// slow call gets a page cut at the page time, not held to the request
// deadline; the cursor resumes after the last item, so that listing to the
// end yields every item once, in order. Each call sleeps 50 ms, so a page
// of all 40 items needs at least 2 s, ten times the page time: before the
// page time, the first page held them all.
func TestList_pageTimeReturnsPartialPage(t *testing.T) {
	const items = 40
	p := pagedProvider("slow", items, func(ctx context.Context, _ string) error {
		select {
		case <-time.After(50 * time.Millisecond):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	s := newServer(t, NewConfig().WithProviders(p).WithPageTime(200*time.Millisecond))
	cs := connectStdio(t, s, "2025-11-25")
	first, err := cs.ListResources(t.Context(), &mcp.ListResourcesParams{})
	require.NoError(t, err)
	require.NotEmpty(t, first.Resources, "a page cut by its time still holds what it got")
	require.Less(t, len(first.Resources), items, "the page returned at its time, not when all calls were done")
	require.NotEmpty(t, first.NextCursor)

	uris, pages := listAll(t, cs)
	want := make([]string, items)
	for i := range want {
		want[i] = fmt.Sprintf("slow:///p%d", i+1)
	}
	require.Equal(t, want, uris, "nothing lost, nothing twice")
	require.Greater(t, pages, 1)
}

func TestConfig_pageTime(t *testing.T) {
	_, err := New(NewConfig().WithPageTime(0))
	require.ErrorContains(t, err, "page time 0s is not positive")
	_, err = New(NewConfig().WithDrainTimeout(-time.Second))
	require.ErrorContains(t, err, "drain timeout -1s is negative")
}
