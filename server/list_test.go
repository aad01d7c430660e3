package server

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/server/servertest"
	"github.com/stretchr/testify/require"
)

// threeProviders returns 10,501 resources across three providers with
// different page sizes, given in an order other than their names'.
func threeProviders() []Provider {
	return []Provider{
		servertest.New("gamma", abi.URIRoot{Scheme: "c"}).Generate("c:///", 3001, 1).WithPageSize(1000),
		servertest.New("alpha", abi.URIRoot{Scheme: "a"}).Generate("a:///", 4000, 1).WithPageSize(1000),
		servertest.New("beta", abi.URIRoot{Scheme: "b"}).Generate("b:///", 3500, 1).WithPageSize(7),
	}
}

func wantURIs(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%06d", prefix, i)
	}
	return out
}

// TestServer_paginationMerged lists 10,000+ resources across three
// providers on a handshake and the stateless revision: each exactly once,
// in provider-name order, in bounded pages.
func TestServer_paginationMerged(t *testing.T) {
	want := append(append(wantURIs("a:///", 4000), wantURIs("b:///", 3500)...), wantURIs("c:///", 3001)...)
	for _, version := range []string{"2025-03-26", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			s := newServer(t, NewConfig().WithProviders(threeProviders()...))
			uris, pages := listAll(t, connect(t, s, version))
			require.Equal(t, want, uris)
			require.GreaterOrEqual(t, pages, 10501/DefaultPageSize)
		})
	}
}

func TestServer_paginationPageSize(t *testing.T) {
	tests := []struct{ pageSize, n, providerPage int }{
		{1, 25, 10}, {3, 100, 7}, {999, 2500, 1000}, {1000, 2500, 1000},
	}
	for _, tc := range tests {
		t.Run(strconv.Itoa(tc.pageSize), func(t *testing.T) {
			p := servertest.New("p", abi.URIRoot{Scheme: "p"}).Generate("p:///", tc.n, 1).WithPageSize(tc.providerPage)
			s := newServer(t, NewConfig().WithProviders(p).WithPageSize(tc.pageSize))
			uris, pages := listAll(t, connect(t, s, "2025-11-25"))
			require.Equal(t, wantURIs("p:///", tc.n), uris)
			require.Equal(t, (tc.n+tc.pageSize-1)/tc.pageSize, pages)
		})
	}
}

// TestServer_paginationFaults puts a misbehaving provider between two good
// ones: the listing still ends, holds every good resource exactly once, and
// logs the culprit with provider=beta.
func TestServer_paginationFaults(t *testing.T) {
	good := append(wantURIs("a:///", 1500), wantURIs("c:///", 1500)...)
	tests := []struct {
		name    string
		beta    Provider
		wantLog string
	}{
		{"fails on second page", failingBeta(func(cursor string) error {
			if cursor != "" {
				return fmt.Errorf("%w: unreachable executed", abi.ErrTrap)
			}
			return nil
		}), "provider trapped"},
		{"quarantined", failingBeta(func(string) error { return abi.ErrQuarantined }), "provider quarantined"},
		{"hangs", hangingBeta(), "context deadline exceeded"},
		{"empty pages forever", loopingBeta(func(cursor string) (*abi.ListResult, error) {
			return &abi.ListResult{Resources: []abi.Resource{}, NextCursor: cursor + "x"}, nil
		}), "empty pages"},
		{"constant cursor", loopingBeta(func(string) (*abi.ListResult, error) {
			return &abi.ListResult{Resources: []abi.Resource{{URI: "b:///same", Name: "same"}}, NextCursor: "again"}, nil
		}), "(a cycle)"},
		{"panics", loopingBeta(func(string) (*abi.ListResult, error) { panic("bug") }), "provider panicked"},
		{"nil result", loopingBeta(func(string) (*abi.ListResult, error) { return nil, nil }), "out of bounds"},
		{"foreign uris", loopingBeta(func(string) (*abi.ListResult, error) {
			return &abi.ListResult{Resources: []abi.Resource{{URI: "a:///000000", Name: "spoof"}}}, nil
		}), "outside the provider's uri space"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			log, logs := newLogger()
			a := servertest.New("alpha", abi.URIRoot{Scheme: "a"}).Generate("a:///", 1500, 1).WithPageSize(1000)
			c := servertest.New("gamma", abi.URIRoot{Scheme: "c"}).Generate("c:///", 1500, 1).WithPageSize(1000)
			cfg := NewConfig().WithProviders(a, tc.beta, c).WithLogger(log).WithCallTimeout(50 * time.Millisecond)
			uris, _ := listAll(t, connect(t, newServer(t, cfg), "2025-11-25"))
			var got []string
			for _, u := range uris {
				if u[0] != 'b' {
					got = append(got, u)
				}
			}
			require.Equal(t, good, got)
			require.Contains(t, logs.String(), "provider=beta")
			require.Contains(t, logs.String(), tc.wantLog)
		})
	}
}

// failingBeta serves 2000 resources in pages of 500, failing when fail says.
func failingBeta(fail func(cursor string) error) Provider {
	return servertest.New("beta", abi.URIRoot{Scheme: "b"}).Generate("b:///", 2000, 1).WithPageSize(500).
		WithIntercept(func(_ context.Context, op, arg string) error {
			if op == abi.OpList {
				return fail(arg)
			}
			return nil
		})
}

func hangingBeta() Provider {
	return servertest.New("beta", abi.URIRoot{Scheme: "b"}).Generate("b:///", 10, 1).
		WithIntercept(func(ctx context.Context, _, _ string) error {
			<-ctx.Done()
			return ctx.Err()
		})
}

func loopingBeta(list func(cursor string) (*abi.ListResult, error)) Provider {
	f := newFuncProvider("beta", "b")
	f.list = func(_ context.Context, cursor string) (*abi.ListResult, error) { return list(cursor) }
	return f
}

// TestServer_listSkipsProvidersWithoutList checks that a provider without
// the list operation is never called for it.
func TestServer_listSkipsProvidersWithoutList(t *testing.T) {
	f := newFuncProvider("beta", "b")
	f.desc.Operations = []string{abi.OpRead}
	f.list = func(context.Context, string) (*abi.ListResult, error) {
		panic("list called on a provider that does not implement it")
	}
	a := servertest.New("alpha", abi.URIRoot{Scheme: "a"}).Generate("a:///", 3, 1)
	uris, pages := listAll(t, connect(t, newServer(t, NewConfig().WithProviders(a, f)), "2025-11-25"))
	require.Equal(t, wantURIs("a:///", 3), uris)
	require.Equal(t, 1, pages)
}
