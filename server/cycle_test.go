package server

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/server/servertest"
	"github.com/stretchr/testify/require"
)

// cyclingProvider lists one resource per page; next says which cursor
// follows a cursor ("" starts). It gives up with a trap after give-up
// calls, so that a server that does not detect the cycle ends anyway (and
// the test sees how many calls it made).
func cyclingProvider(next func(calls int, cursor string) string, giveUp int) (*funcProvider, func() int) {
	var mu sync.Mutex
	calls := 0
	p := newFuncProvider("cycle", "cyc")
	p.list = func(_ context.Context, cursor string) (*abi.ListResult, error) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n > giveUp {
			return nil, fmt.Errorf("%w: gave up", abi.ErrTrap)
		}
		return &abi.ListResult{
			Resources:  []abi.Resource{{URI: fmt.Sprintf("cyc:///%d", n), Name: cursor}},
			NextCursor: next(n, cursor),
		}, nil
	}
	return p, func() int {
		mu.Lock()
		defer mu.Unlock()
		return calls
	}
}

// ring returns the cursors c0..c(n-1), each followed by the next, the last
// by the first.
func ring(prefix string, n int) func(int, string) string {
	return func(_ int, cursor string) string {
		i := 0
		if cursor != "" {
			fmt.Sscanf(strings.TrimPrefix(cursor, prefix), "%d", &i)
			i = (i + 1) % n
		}
		return fmt.Sprintf("%s%d", prefix, i)
	}
}

// TestList_cursorCycles: a provider whose cursors repeat is skipped for
// the rest of the listing with a log line, after a number of calls bounded
// by the cycle's tail and length, whether its pages fill client pages or
// cross them (the memory travels in the signed cursor); the provider after
// it is listed. Before, only a cursor equal to the one given was caught,
// and a cycle was followed up to 100,000 provider pages.
func TestList_cursorCycles(t *testing.T) {
	tests := []struct {
		name string
		next func(int, string) string
		max  int // provider calls allowed before the cycle is caught
	}{
		{"a b a", func(_ int, c string) string { return map[string]string{"": "a", "a": "b", "b": "a"}[c] }, 3},
		{"constant", func(int, string) string { return "same" }, 2},
		{"ring of 3", ring("r", 3), 4},
		{"ring of 50", ring("r", 50), 4*50 + seenWindow},
		{"tail of 30, ring of 20", func(n int, _ string) string {
			if n < 30 {
				return fmt.Sprint("t", n)
			}
			return fmt.Sprint("r", (n-30)%20)
		}, 4*50 + seenWindow},
		{"stateful repeat", func(n int, _ string) string { // a b c b d e f ...: b repeats once
			if n == 4 {
				return "c2"
			}
			return fmt.Sprint("c", n)
		}, 5},
	}
	for _, tc := range tests {
		for _, pageSize := range []int{1, DefaultPageSize} {
			t.Run(fmt.Sprintf("%s/page %d", tc.name, pageSize), func(t *testing.T) {
				p, calls := cyclingProvider(tc.next, 20*tc.max)
				after := servertest.New("zeta", abi.URIRoot{Scheme: "z"}).Generate("z:///", 3, 1)
				log, buf := newLogger()
				s := newServer(t, NewConfig().WithProviders(p, after).WithLogger(log).WithPageSize(pageSize))
				uris, _ := listAll(t, connect(t, s, "2025-11-25"))
				require.LessOrEqual(t, calls(), tc.max, "the cycle is caught within its bound")
				require.Contains(t, buf.String(), "(a cycle)")
				require.Contains(t, buf.String(), "provider=cycle")
				require.Equal(t, wantURIs("z:///", 3), uris[len(uris)-3:], "the next provider is listed")
			})
		}
	}
}

// TestList_noFalseCycle: a long listing of distinct cursors, across client
// pages, is followed to its end.
func TestList_noFalseCycle(t *testing.T) {
	p, calls := cyclingProvider(func(n int, _ string) string {
		if n == 3000 {
			return ""
		}
		return fmt.Sprint("c", n)
	}, 3000)
	log, buf := newLogger()
	s := newServer(t, NewConfig().WithProviders(p).WithLogger(log).WithPageSize(7))
	uris, _ := listAll(t, connect(t, s, "2026-07-28"))
	require.Len(t, uris, 3000)
	require.Equal(t, 3000, calls())
	require.NotContains(t, buf.String(), "cycle")
}

// TestCycleFixtureCommitted: the committed testdata/cycle.wasm is built
// from cycle.wat (checked when wabt is installed).
func TestCycleFixtureCommitted(t *testing.T) {
	if _, err := exec.LookPath("wat2wasm"); err != nil {
		t.Skip("wat2wasm not installed (apt-get install -y wabt): cannot check testdata/cycle.wasm")
	}
	out := filepath.Join(t.TempDir(), "cycle.wasm")
	b, err := exec.Command("wat2wasm", filepath.Join("testdata", "cycle.wat"), "-o", out).CombinedOutput()
	require.NoError(t, err, string(b))
	built, err := os.ReadFile(out)
	require.NoError(t, err)
	committed, err := os.ReadFile(filepath.Join("testdata", "cycle.wasm"))
	require.NoError(t, err)
	require.Equal(t, built, committed, "testdata/cycle.wasm is stale: wat2wasm server/testdata/cycle.wat -o server/testdata/cycle.wasm")
}
