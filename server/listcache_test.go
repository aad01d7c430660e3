package server

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/server/servertest"
)

// The list cache's tests: an in-process provider that counts its list
// calls, listed by the go-sdk client. The real guest's are in
// cmd/mcp-wasm/defaultprovider (listcache_test.go).

var hourPublic = abi.CacheHint{TTLMs: 3_600_000, Scope: abi.ScopePublic}

// countedProvider is a servertest provider of n resources named name,
// counting its list calls in calls; hook (if set) runs inside each call.
func countedProvider(name string, n int, hint *abi.CacheHint, calls *atomic.Int64, hook func()) *servertest.Provider {
	p := servertest.New(name, abi.URIRoot{Scheme: name}).WithIntercept(func(_ context.Context, op, _ string) error {
		if op == abi.OpList {
			calls.Add(1)
			if hook != nil {
				hook()
			}
		}
		return nil
	})
	if hint != nil {
		p = p.WithCache(*hint)
	}
	for i := range n {
		p.AddText(fmt.Sprintf("%s:///r%05d", name, i), "text/plain", "x")
	}
	return p
}

// listURIs lists every page (listAll, helpers_test.go) and returns the URIs.
func listURIs(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	uris, _ := listAll(t, cs)
	return uris
}

func TestListCache_trackedUntilAChange(t *testing.T) {
	var calls atomic.Int64
	s := newServer(t, NewConfig().WithProviders(countedProvider("a", 250, &hourPublic, &calls, nil)))
	s.ChangesTracked("a", true)
	cs := connect(t, s, "2025-11-25")
	require.Len(t, listURIs(t, cs), 250)
	first := calls.Load()
	require.Equal(t, int64(3), first, "three provider pages of 100")
	require.True(t, s.Interested())
	require.True(t, s.lists.active(), "pages kept until a change keep the change feeds asking")

	require.Len(t, listURIs(t, cs), 250)
	require.Equal(t, first, calls.Load(), "an unchanged provider is not called again")

	for _, signal := range []func(){
		s.ResourceListChanged,
		func() { s.ResourcesUpdated("a", "a:///r00001") },
	} {
		signal()
		before := calls.Load()
		require.Len(t, listURIs(t, cs), 250)
		require.Equal(t, before+3, calls.Load(), "after a change signal every page is asked again")
	}

	s.ChangesTracked("a", false)
	require.False(t, s.lists.active(), "pages kept until a change are dropped when no feed reports changes")
	before := calls.Load()
	listURIs(t, cs)
	require.Equal(t, before+3, calls.Load())
}

func TestListCache_untrackedForTheTTLOnly(t *testing.T) {
	for _, tc := range []struct {
		name   string
		hint   *abi.CacheHint
		cached bool
	}{
		{"an hour, public", &hourPublic, true},
		{"no hint", nil, false},
		{"ttl 0", &abi.CacheHint{TTLMs: 0, Scope: abi.ScopePublic}, false},
		{"private", &abi.CacheHint{TTLMs: 3_600_000, Scope: abi.ScopePrivate}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int64
			s := newServer(t, NewConfig().WithProviders(countedProvider("a", 50, tc.hint, &calls, nil)))
			cs := connect(t, s, "2025-11-25")
			listURIs(t, cs)
			listURIs(t, cs)
			if tc.cached {
				require.Equal(t, int64(1), calls.Load())
			} else {
				require.Equal(t, int64(2), calls.Load())
			}
			require.False(t, s.lists.active(), "a page kept for its ttl needs no change feed")
		})
	}

	t.Run("expires", func(t *testing.T) {
		var calls atomic.Int64
		s := newServer(t, NewConfig().WithProviders(countedProvider("a", 50, &abi.CacheHint{TTLMs: 1, Scope: abi.ScopePublic}, &calls, nil)))
		cs := connect(t, s, "2025-11-25")
		listURIs(t, cs)
		testkit.Eventually(t, func() bool { listURIs(t, cs); return calls.Load() > 1 }, "a page past its ttl is asked again")
	})
}

// A change signal that arrives while a page is being fetched means the
// page may predate it: it is served to the request that asked, never kept.
func TestListCache_pageFetchedDuringAChangeIsNotKept(t *testing.T) {
	var calls atomic.Int64
	var s *Server
	hook := func() {
		if calls.Load() == 1 {
			s.ResourcesUpdated("a", "a:///r00000")
		}
	}
	s = newServer(t, NewConfig().WithProviders(countedProvider("a", 50, &hourPublic, &calls, hook)))
	s.ChangesTracked("a", true)
	cs := connect(t, s, "2025-11-25")
	listURIs(t, cs)
	listURIs(t, cs)
	listURIs(t, cs)
	require.Equal(t, int64(2), calls.Load(), "the first page was not kept, the second was")
}

func TestListCache_providersAreIsolated(t *testing.T) {
	var aCalls, bCalls atomic.Int64
	s := newServer(t, NewConfig().WithProviders(
		countedProvider("a", 150, &hourPublic, &aCalls, nil),
		countedProvider("b", 150, &hourPublic, &bCalls, nil)))
	s.ChangesTracked("a", true)
	s.ChangesTracked("b", true)
	cs := connect(t, s, "2025-11-25")
	want := listURIs(t, cs)
	require.Len(t, want, 300)
	require.Equal(t, "a:///r00000", want[0])
	require.Equal(t, "b:///r00000", want[150], "each provider's first page (the same cursor) is its own")
	a, b := aCalls.Load(), bCalls.Load()

	s.ResourcesUpdated("b", "b:///r00001")
	require.Equal(t, want, listURIs(t, cs))
	require.Equal(t, a, aCalls.Load(), "a change to b leaves a's pages")
	require.Equal(t, b+2, bCalls.Load(), "and drops b's")

	s.ProviderChanged("a") // the host's watch saw a's files change
	require.Equal(t, want, listURIs(t, cs))
	require.Equal(t, a+2, aCalls.Load())
	require.Equal(t, b+2, bCalls.Load())
}

func TestListCache_budget(t *testing.T) {
	var calls atomic.Int64
	p := countedProvider("a", 2000, &hourPublic, &calls, nil).WithPageSize(100)
	page, err := p.List(t.Context(), "")
	require.NoError(t, err)
	calls.Store(0)
	raw, err := json.Marshal(page)
	require.NoError(t, err)
	one := listResultSize(listKey{}, page)
	require.Greater(t, one, int64(len(raw)), "a page is counted at no less than its JSON")

	budget := 10 * one // room for about 10 of the 20 pages
	s := newServer(t, NewConfig().WithProviders(p).WithListCache(budget))
	s.ChangesTracked("a", true)
	cs := connect(t, s, "2025-11-25")
	require.Len(t, listURIs(t, cs), 2000)
	require.Equal(t, int64(20), calls.Load())
	require.LessOrEqual(t, s.ListCacheBytes(), budget)
	require.Greater(t, s.ListCacheBytes(), budget/2)

	listURIs(t, cs)
	require.Equal(t, int64(40), calls.Load(), "listed in order, a cache smaller than the list keeps none of the pages it needs next")
	require.LessOrEqual(t, s.ListCacheBytes(), budget)

	// A page larger than an eighth of the budget is never kept.
	s = newServer(t, NewConfig().WithProviders(p).WithListCache(8*one-1))
	s.ChangesTracked("a", true)
	cs = connect(t, s, "2025-11-25")
	calls.Store(0)
	listURIs(t, cs)
	require.Zero(t, s.ListCacheBytes())
}

func TestListCache_off(t *testing.T) {
	var calls atomic.Int64
	s := newServer(t, NewConfig().WithProviders(countedProvider("a", 50, &hourPublic, &calls, nil)).WithListCache(0))
	s.ChangesTracked("a", true)
	cs := connect(t, s, "2025-11-25")
	listURIs(t, cs)
	listURIs(t, cs)
	require.Equal(t, int64(2), calls.Load())
	require.False(t, s.lists.active())

	_, err := New(NewConfig().WithListCache(-1))
	require.ErrorContains(t, err, "list cache -1 bytes out of range: use 0 (off) to")
}

// A reload is a change signal: the new providers' pages are their own.
func TestListCache_reload(t *testing.T) {
	var calls atomic.Int64
	s := newServer(t, NewConfig().WithProviders(countedProvider("a", 50, &hourPublic, &calls, nil)))
	s.ChangesTracked("a", true)
	cs := connect(t, s, "2025-11-25")
	listURIs(t, cs)
	done, err := s.SetProviders(countedProvider("a", 60, &hourPublic, &calls, nil))
	require.NoError(t, err)
	<-done
	require.Len(t, listURIs(t, cs), 60)
	require.Equal(t, int64(2), calls.Load())
}

// Templates pages are kept like list pages, under their own key.
func TestListCache_templates(t *testing.T) {
	var lists, templates atomic.Int64
	p := servertest.New("a", abi.URIRoot{Scheme: "a"}).WithCache(hourPublic).
		AddText("a:///x", "text/plain", "x").
		AddTemplate(abi.ResourceTemplate{URITemplate: "a:///t/{id}", Name: "t"}, "1").
		WithIntercept(func(_ context.Context, op, _ string) error {
			switch op {
			case abi.OpList:
				lists.Add(1)
			case abi.OpTemplates:
				templates.Add(1)
			}
			return nil
		})
	s := newServer(t, NewConfig().WithProviders(p))
	s.ChangesTracked("a", true)
	cs := connect(t, s, "2025-11-25")
	for range 3 {
		res, err := cs.ListResourceTemplates(t.Context(), nil)
		require.NoError(t, err)
		require.Len(t, res.ResourceTemplates, 1)
		require.Equal(t, "a:///t/{id}", res.ResourceTemplates[0].URITemplate)
		require.Equal(t, []string{"a:///x"}, listURIs(t, cs))
	}
	require.Equal(t, int64(1), templates.Load())
	require.Equal(t, int64(1), lists.Load())
	s.ResourceListChanged()
	_, err := cs.ListResourceTemplates(t.Context(), nil)
	require.NoError(t, err)
	require.Equal(t, int64(2), templates.Load())
}

// While a tracked provider's page is being fetched, the cache counts as a
// listener, so a change feed asks the provider and a change made during
// the fetch bumps the generation; an untracked provider's fetch does not.
func TestListCache_activeWhileFetching(t *testing.T) {
	for _, tracked := range []bool{true, false} {
		var calls atomic.Int64
		var during atomic.Bool
		var s *Server
		s = newServer(t, NewConfig().WithProviders(countedProvider("a", 10, &hourPublic, &calls, func() { during.Store(s.lists.active()) })))
		s.ChangesTracked("a", tracked)
		cs := connect(t, s, "2025-11-25")
		require.False(t, s.lists.active())
		listURIs(t, cs)
		require.Equal(t, tracked, during.Load())
		require.Equal(t, tracked, s.lists.active(), "afterwards: only pages kept until a change need the feed")
	}
}

// TestListCache_accessRules: the cache keeps the provider's pages, and
// each principal's view is worked out from them on every request: alice,
// whose rule includes the first ten resources, and bob, whose rule
// excludes them, list through the same cached pages, the provider is
// called once for both, and neither ever sees the other's part.
func TestListCache_accessRules(t *testing.T) {
	var calls atomic.Int64
	rs, err := NewRules(
		mustRule(t, "alice", []string{"token:alice"}, []string{"a"}, []string{"a:///r0000*"}, nil),
		mustRule(t, "bob", []string{"token:bob"}, []string{"a"}, nil, []string{"a:///r0000*"}))
	require.NoError(t, err)
	s := newServer(t, NewConfig().WithProviders(countedProvider("a", 250, &hourPublic, &calls, nil)).WithRules(rs))
	s.ChangesTracked("a", true)
	url := serveHTTP(t, s, NewHTTPConfig().WithAuth(staticTeamAuth()).WithRateLimit(1e6, 1e6))
	var want []string
	for i := range 10 {
		want = append(want, fmt.Sprintf("a:///r%05d", i))
	}
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		alice := connectHTTP(t, url, version, bearerClient("alice-secret"), nil)
		bob := connectHTTP(t, url, version, bearerClient("bob-secret"), nil)
		for round := range 2 {
			require.Equal(t, want, listURIs(t, alice), "%s round %d", version, round)
			got := listURIs(t, bob)
			require.Len(t, got, 240, "%s round %d", version, round)
			require.NotContains(t, got, "a:///r00003")
			require.Contains(t, got, "a:///r00010")
		}
	}
	require.Equal(t, int64(3), calls.Load(), "the provider's three pages were fetched once, for both principals and both revisions")
	_, err = connectHTTP(t, url, "2025-11-25", bearerClient("alice-secret"), nil).ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "a:///r00100"})
	require.Error(t, err, "a resource alice's rule leaves out stays hidden from a cached listing's neighbour")
}

// TestListCache_busListChange: a list change announced on the fleet's bus
// by another replica drops this replica's pages, so a client told of it
// and listing here next is not served a page from before it.
func TestListCache_busListChange(t *testing.T) {
	var calls atomic.Int64
	s := newServer(t, NewConfig().WithProviders(countedProvider("a", 50, &hourPublic, &calls, nil)))
	s.ChangesTracked("a", true)
	cs := connect(t, s, "2025-11-25")
	listURIs(t, cs)
	listURIs(t, cs)
	require.Equal(t, int64(1), calls.Load())
	s.onBusEvent(BusEvent{Kind: busList})
	listURIs(t, cs)
	require.Equal(t, int64(2), calls.Load(), "a list change from the bus drops the pages")
	listURIs(t, cs)
	s.onBusEvent(BusEvent{Kind: busUpdated, Keys: []string{listMarker + "b"}})
	listURIs(t, cs)
	require.Equal(t, int64(2), calls.Load(), "another provider's scoped list change leaves a's pages")
	s.onBusEvent(BusEvent{Kind: busUpdated, Keys: []string{listMarker + "a"}})
	listURIs(t, cs)
	require.Equal(t, int64(3), calls.Load(), "a's scoped list change (access rules on another replica) drops a's pages")
}
