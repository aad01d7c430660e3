package server

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

const waitLong = testkit.Wait

// heard records the change notifications a go-sdk client receives.
type heard struct {
	mu      sync.Mutex
	updated []string
	ids     []any // subscription id of each updated, nil on the handshake revisions
	lists   int
}

func (h *heard) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{},
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.updated = append(h.updated, r.Params.URI)
			h.ids = append(h.ids, r.Params.Meta[mcp.MetaKeySubscriptionID])
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.lists++
		},
	}
}

func (h *heard) count(uri string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, u := range h.updated {
		if u == uri {
			n++
		}
	}
	return n
}

func (h *heard) listChanges() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lists
}

// connectHearing connects a go-sdk client that records notifications.
func connectHearing(t *testing.T, s *Server, version string) (*mcp.ClientSession, *heard) {
	t.Helper()
	h := &heard{}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.mcp.Connect(t.Context(), st, nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "live", Version: "1"}, h.options()).
		Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs, h
}

// liveServer serves the notes fixture with a notify delay the tests beat
// with explicit flushes.
func liveServer(t *testing.T, cfg Config) *Server {
	return newServer(t, cfg.WithProviders(notesProvider()).withNotifyDelay(maxNotifyDelay))
}

// barrier returns once the client has handled every notification the
// server sent before it: a list change goes out after what was flushed
// before, and go-sdk clients handle notifications in order (unlike
// responses, which may overtake them).
func barrier(t *testing.T, s *Server, h *heard) {
	t.Helper()
	before := h.listChanges()
	s.ResourceListChanged()
	s.notify.flush()
	require.Eventually(t, func() bool { return h.listChanges() > before }, testkit.Wait, time.Millisecond)
}

// listenedTo reports whether a listen was acknowledged for uri (go-sdk
// clients do not wait for the acknowledgement).
func listenedTo(s *Server, uri string) bool {
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	for _, st := range s.subs.sessions {
		for _, l := range st.listens {
			if _, ok := l.uris[subscriptionKeyOf(uri)]; ok {
				return true
			}
		}
	}
	return false
}

// TestLive_legacy: on every handshake revision, resources/subscribe gets
// updated notifications for that URI only, once per flush however often it
// changed, and resources/unsubscribe stops them; list changes reach the
// session unasked.
func TestLive_legacy(t *testing.T) {
	for _, version := range allRevisions[:4] {
		t.Run(version, func(t *testing.T) {
			s := liveServer(t, NewConfig())
			cs, h := connectHearing(t, s, version)
			ctx := t.Context()
			require.NoError(t, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "notes:///hello"}))
			require.NoError(t, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "NOTES:///logo.png"}))

			for range 5 {
				s.ResourcesUpdated("notes", "notes:///hello", "notes:///empty")
			}
			s.notify.flush()
			barrier(t, s, h)
			require.Equal(t, 1, h.count("notes:///hello"))
			require.Zero(t, h.count("notes:///empty"), "not subscribed")

			s.ResourcesUpdated("notes", "notes:///logo.png")
			s.notify.flush()
			barrier(t, s, h)
			require.Equal(t, 1, h.count("NOTES:///logo.png"), "announced under the uri the client sent")

			require.NoError(t, cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "notes:///hello"}))
			s.ResourcesUpdated("notes", "notes:///hello", "notes:///logo.png")
			s.notify.flush()
			barrier(t, s, h)
			require.Equal(t, 1, h.count("notes:///hello"), "unsubscribed")
			require.Equal(t, 2, h.count("NOTES:///logo.png"))

			require.Equal(t, 3, h.listChanges(), "one per barrier")
			h.mu.Lock()
			defer h.mu.Unlock()
			require.Nil(t, h.ids[0], "no subscription id outside a listen")
		})
	}
}

// TestLive_modern: 2026-07-28 through the go-sdk client, which opens one
// listen for list changes at connect and one per Subscribe: notifications
// carry the listen's subscription id, and Unsubscribe (a cancelled listen)
// ends them.
func TestLive_modern(t *testing.T) {
	s := liveServer(t, NewConfig())
	cs, h := connectHearing(t, s, "2026-07-28")
	ctx := t.Context()
	require.NoError(t, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "notes:///hello"}))
	require.Eventually(t, func() bool { return listenedTo(s, "notes:///hello") }, testkit.Wait, 5*time.Millisecond)

	s.ResourcesUpdated("notes", "notes:///hello")
	s.notify.flush()
	require.Eventually(t, func() bool { return h.count("notes:///hello") == 1 }, testkit.Wait, 5*time.Millisecond)
	h.mu.Lock()
	require.NotNil(t, h.ids[0], "tagged with the listen's subscription id")
	h.mu.Unlock()

	s.ResourceListChanged()
	s.notify.flush()
	require.Eventually(t, func() bool { return h.listChanges() == 1 }, testkit.Wait, 5*time.Millisecond)

	require.NoError(t, cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "notes:///hello"}))
	require.Eventually(t, func() bool { return !s.subs.subscribed("notes:///hello") }, testkit.Wait, 5*time.Millisecond)
	s.ResourcesUpdated("notes", "notes:///hello")
	s.notify.flush()
	barrier(t, s, h)
	require.Equal(t, 1, h.count("notes:///hello"))
}

// TestLive_refusals: a subscription URI is checked like a read URI, must be
// owned by a provider, and is not looked up in it.
func TestLive_refusals(t *testing.T) {
	s := liveServer(t, NewConfig())
	cs, _ := connectHearing(t, s, "2025-11-25")
	ctx := t.Context()
	tests := []struct {
		uri  string
		code int64
	}{
		{"notes:///a/../b", jsonrpc.CodeInvalidParams},
		{"notes:///a%2Fb", jsonrpc.CodeInvalidParams},
		{"notes://user@host/x", jsonrpc.CodeInvalidParams},
		{"", jsonrpc.CodeInvalidParams},
		{"other:///x", codeResourceNotFound},
		{"notes:///not-yet", 0},
	}
	for _, tc := range tests {
		err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: tc.uri})
		if tc.code == 0 {
			require.NoError(t, err, tc.uri)
			continue
		}
		require.Equal(t, tc.code, rpcError(t, err).Code, tc.uri)
	}
	require.NoError(t, cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "notes:///never-subscribed"}))
}

// TestLive_bounded: a session holds at most WithMaxSubscriptions URIs;
// repeating one costs nothing and unsubscribing frees a place.
func TestLive_bounded(t *testing.T) {
	s := liveServer(t, NewConfig().WithMaxSubscriptions(2))
	cs, _ := connectHearing(t, s, "2025-11-25")
	ctx := t.Context()
	sub := func(uri string) error { return cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}) }
	require.NoError(t, sub("notes:///hello"))
	require.NoError(t, sub("notes:///logo.png"))
	require.NoError(t, sub("notes:///hello"))
	werr := rpcError(t, sub("notes:///empty"))
	require.Equal(t, int64(jsonrpc.CodeInvalidParams), werr.Code)
	require.Contains(t, werr.Message, "at most 2 per session")
	require.NoError(t, cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "notes:///logo.png"}))
	require.NoError(t, sub("notes:///empty"))

	other, _ := connectHearing(t, s, "2025-11-25") // the bound is per session
	require.NoError(t, other.Subscribe(ctx, &mcp.SubscribeParams{URI: "notes:///logo.png"}))
}

// TestLive_boundedAcrossSessions: the sessions together hold at most the
// total of subscriptions.
func TestLive_boundedAcrossSessions(t *testing.T) {
	s := liveServer(t, NewConfig().WithMaxSubscriptions(2).WithSubscriptionShares(3, 3))
	a, _ := connectHearing(t, s, "2025-11-25")
	b, _ := connectHearing(t, s, "2025-11-25")
	ctx := t.Context()
	require.NoError(t, a.Subscribe(ctx, &mcp.SubscribeParams{URI: "notes:///hello"}))
	require.NoError(t, a.Subscribe(ctx, &mcp.SubscribeParams{URI: "notes:///logo.png"}))
	require.NoError(t, b.Subscribe(ctx, &mcp.SubscribeParams{URI: "notes:///hello"}))
	werr := rpcError(t, b.Subscribe(ctx, &mcp.SubscribeParams{URI: "notes:///empty"}))
	require.Contains(t, werr.Message, "try again later")
	require.NoError(t, a.Close())
	require.Eventually(t, func() bool {
		return b.Subscribe(ctx, &mcp.SubscribeParams{URI: "notes:///empty"}) == nil
	}, testkit.Wait, 10*time.Millisecond, "a session's end frees its share")
}

// TestLive_sessionEnd: what a session held is dropped when it ends.
func TestLive_sessionEnd(t *testing.T) {
	s := liveServer(t, NewConfig())
	cs, _ := connectHearing(t, s, "2025-11-25")
	require.NoError(t, cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "notes:///hello"}))
	require.True(t, s.subs.subscribed("notes:///hello"))
	require.NoError(t, cs.Close())
	require.Eventually(t, func() bool {
		s.subs.mu.Lock()
		defer s.subs.mu.Unlock()
		return len(s.subs.sessions) == 0 && len(s.subs.index) == 0
	}, testkit.Wait, 5*time.Millisecond)
}

// TestLive_foreignChanges: a provider speaks only for its own uri space;
// changes from unknown providers or for foreign URIs are dropped.
func TestLive_foreignChanges(t *testing.T) {
	s := liveServer(t, NewConfig())
	cs, h := connectHearing(t, s, "2025-11-25")
	require.NoError(t, cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "notes:///hello"}))
	s.ResourcesUpdated("nobody", "notes:///hello")
	s.ResourcesUpdated("notes", "file:///etc/passwd", "notes:///a/../hello", "\x00")
	s.notify.flush()
	barrier(t, s, h)
	require.Zero(t, h.count("notes:///hello"))
}

// TestLive_interested: change feeds poll only while some client would hear.
func TestLive_interested(t *testing.T) {
	s := liveServer(t, NewConfig())
	require.False(t, s.Interested(), "no session")
	modern, _ := connectHearing(t, s, "2026-07-28") // listens for list changes at connect
	require.Eventually(t, s.Interested, waitLong, 5*time.Millisecond)
	require.NoError(t, modern.Close())
	require.Eventually(t, func() bool { return !s.Interested() }, testkit.Wait, 5*time.Millisecond)
	_, _ = connectHearing(t, s, "2025-11-25")
	require.True(t, s.Interested(), "a handshake session hears list changes unasked")
}

// TestLive_config: the limits are validated by New.
func TestLive_config(t *testing.T) {
	for _, cfg := range []Config{
		NewConfig().WithMaxSubscriptions(0),
		NewConfig().WithMaxSubscriptions(MaxSubscriptions + 1),
		NewConfig().withNotifyDelay(0),
		NewConfig().withNotifyDelay(time.Minute),
	} {
		_, err := New(cfg)
		require.Error(t, err)
	}
	_, err := New(NewConfig().WithMaxSubscriptions(1).withNotifyDelay(time.Millisecond))
	require.NoError(t, err)
}

// TestLive_concurrentSubscribers: many sessions subscribing, unsubscribing
// and being notified at once leave no state behind.
func TestLive_concurrentSubscribers(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()).withNotifyDelay(time.Millisecond))
	uris := []string{"notes:///hello", "notes:///logo.png", "notes:///empty"}
	var wg sync.WaitGroup
	for i := range 10 {
		cs, _ := connectHearing(t, s, allRevisions[i%len(allRevisions)])
		wg.Go(func() {
			for j := range 30 {
				uri := uris[(i+j)%len(uris)]
				_ = cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri})
				s.ResourcesUpdated("notes", uris...)
				_ = cs.Unsubscribe(context.Background(), &mcp.UnsubscribeParams{URI: uri})
			}
			_ = cs.Close()
		})
	}
	wg.Wait()
	require.Eventually(t, func() bool {
		s.subs.mu.Lock()
		defer s.subs.mu.Unlock()
		return len(s.subs.index) == 0 && len(s.subs.sessions) == 0 && s.subs.held == 0 && s.subs.open == 0
	}, testkit.Wait, 5*time.Millisecond)
}
