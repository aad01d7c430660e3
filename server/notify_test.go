package server

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// sends records what a notifier flushed.
type sends struct {
	mu    sync.Mutex
	calls []sent
}

type sent struct {
	uris []string
	list bool
}

func (s *sends) send(uris []string, list bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, sent{uris, list})
}

func (s *sends) get() []sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sent(nil), s.calls...)
}

// TestNotifier_coalesces: however often a URI is reported before a flush,
// it is sent once; a flush with nothing pending sends nothing.
func TestNotifier_coalesces(t *testing.T) {
	tests := []struct {
		name string
		adds []sent
		want []sent
	}{
		{"nothing", nil, nil},
		{"empty adds", []sent{{nil, false}, {[]string{}, false}}, nil},
		{"one uri many times", []sent{{[]string{"a:x"}, false}, {[]string{"a:x"}, false}, {[]string{"a:x", "a:x"}, false}},
			[]sent{{[]string{"a:x"}, false}}},
		{"sorted and merged with list", []sent{{[]string{"b:y", "a:x"}, false}, {nil, true}, {[]string{"a:x"}, true}},
			[]sent{{[]string{"a:x", "b:y"}, true}}},
		{"list only", []sent{{nil, true}, {nil, true}}, []sent{{[]string{}, true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got sends
			n := newNotifier(time.Hour, got.send) // the timer never fires in the test
			for _, a := range tc.adds {
				n.add(a.uris, a.list)
			}
			n.flush()
			n.flush()
			require.Equal(t, tc.want, got.get())
		})
	}
}

// TestNotifier_timer: the first change arms the timer; the flush it runs
// sends the changes added meanwhile, and a later change arms it again.
func TestNotifier_timer(t *testing.T) {
	var got sends
	n := newNotifier(20*time.Millisecond, got.send)
	n.add([]string{"a:x"}, false)
	n.add([]string{"a:y"}, false)
	require.Eventually(t, func() bool { return len(got.get()) == 1 }, testkit.Wait, 5*time.Millisecond)
	n.add(nil, true)
	require.Eventually(t, func() bool { return len(got.get()) == 2 }, testkit.Wait, 5*time.Millisecond)
	calls := got.get()
	require.Equal(t, []string{"a:x", "a:y"}, calls[0].uris)
	require.True(t, calls[1].list)
}

// TestNotifier_hammer: concurrent adds and flushes lose nothing: every URI
// added is sent by the flush that follows.
func TestNotifier_hammer(t *testing.T) {
	var got sends
	n := newNotifier(time.Millisecond, got.send)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				n.add([]string{string(rune('a'+g)) + ":" + string(rune('a'+i%26))}, i%50 == 0)
				if i%20 == 0 {
					n.flush()
				}
			}
		})
	}
	wg.Wait()
	n.flush()
	seen := map[string]bool{}
	for _, c := range got.get() {
		for _, u := range c.uris {
			seen[u] = true
		}
	}
	require.Len(t, seen, 8*26)
}
