package server

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// recordingObserver keeps what it is told, as "method outcome" strings
// and running totals.
type recordingObserver struct {
	mu                     sync.Mutex
	requests, notes        []string
	sessions, streams      int
	sessionsOpened, maxStr int
}

func (o *recordingObserver) Request(method, outcome string, d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.requests = append(o.requests, method+" "+outcome)
}

func (o *recordingObserver) Notification(method string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.notes = append(o.notes, method)
}

func (o *recordingObserver) Session(delta int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.sessions += delta
	if delta > 0 {
		o.sessionsOpened += delta
	}
}

func (o *recordingObserver) Stream(delta int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.streams += delta
	o.maxStr = max(o.maxStr, o.streams)
}

func (o *recordingObserver) snapshot() recordingObserver {
	o.mu.Lock()
	defer o.mu.Unlock()
	return recordingObserver{requests: append([]string(nil), o.requests...), notes: append([]string(nil), o.notes...),
		sessions: o.sessions, streams: o.streams, sessionsOpened: o.sessionsOpened, maxStr: o.maxStr}
}

func TestObserverLegacySession(t *testing.T) {
	obs := &recordingObserver{}
	s := newServer(t, NewConfig().WithProviders(notesProvider()).WithObserver(obs).withNotifyDelay(time.Millisecond))
	cs := connect(t, s, "2025-11-25")
	ctx := t.Context()

	_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes:///hello"})
	require.NoError(t, err)
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes:///nope"})
	require.Equal(t, int64(-32002), rpcError(t, err).Code)
	require.NoError(t, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "notes:///hello"}))
	s.ResourcesUpdated("notes", "notes:///hello")
	require.Eventually(t, func() bool { return len(obs.snapshot().notes) > 0 }, testkit.Wait, 10*time.Millisecond)

	got := obs.snapshot()
	require.Equal(t, 1, got.sessions)
	require.Contains(t, got.requests, "initialize ok")
	require.Contains(t, got.requests, "notifications/initialized ok")
	require.Contains(t, got.requests, "resources/read ok")
	require.Contains(t, got.requests, "resources/read -32002")
	require.Contains(t, got.requests, "resources/subscribe ok")
	require.Equal(t, []string{notifyResourceUpdated}, got.notes)

	require.NoError(t, cs.Close())
	require.Eventually(t, func() bool { return obs.snapshot().sessions == 0 }, testkit.Wait, 10*time.Millisecond,
		"the session is reported ended when it closes")
	require.Equal(t, 1, obs.snapshot().sessionsOpened)
}

func TestObserverStatelessAndListen(t *testing.T) {
	obs := &recordingObserver{}
	s := newServer(t, NewConfig().WithProviders(notesProvider()).WithObserver(obs))
	cs := connect(t, s, "")
	ctx := t.Context()

	_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes:///nope"})
	require.Equal(t, int64(-32602), rpcError(t, err).Code)
	_, err = cs.ListResources(ctx, nil)
	require.NoError(t, err)

	done := make(chan error, 1)
	go func() { done <- cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "notes:///hello"}) }() // blocks while listening
	require.Eventually(t, func() bool { return obs.snapshot().streams == 1 }, testkit.Wait, 10*time.Millisecond)
	require.NoError(t, cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "notes:///hello"}))
	<-done
	require.Eventually(t, func() bool { return obs.snapshot().streams == 0 }, testkit.Wait, 10*time.Millisecond,
		"the listen stream is reported ended")

	got := obs.snapshot()
	require.Zero(t, got.sessionsOpened, "2026-07-28 has no sessions")
	require.Equal(t, 1, got.maxStr)
	require.Contains(t, got.notes, notifyAcknowledged)
	require.Contains(t, got.requests, "resources/read -32602")
	require.Contains(t, got.requests, "resources/list ok")
}

func TestObservedMethodBoundsLabels(t *testing.T) {
	require.Equal(t, "resources/read", observedMethod("resources/read"))
	require.Equal(t, "other", observedMethod("x/"+string(make([]byte, 100))))
	require.Equal(t, "ok", outcome(nil))
	require.Equal(t, "-32601", outcome(methodNotFound("x")))
}

// TestObserverToolsView: a call of the resource tools view is counted as
// tools/call, and a tool error result for a not found is counted with the
// code the same failure has on resources/read, on both eras.
func TestObserverToolsView(t *testing.T) {
	for _, rev := range []string{"2025-11-25", ""} {
		t.Run("revision="+rev, func(t *testing.T) {
			obs := &recordingObserver{}
			s := newServer(t, NewConfig().WithProviders(notesProvider()).WithResourceTools(true).WithObserver(obs))
			cs := connect(t, s, rev)
			ctx := t.Context()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_resource", Arguments: map[string]any{"uri": "notes:///hello"}})
			require.NoError(t, err)
			require.False(t, res.IsError)
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_resource", Arguments: map[string]any{"uri": "notes:///nope"}})
			require.NoError(t, err)
			require.True(t, res.IsError, "a not found is a tool error result")
			_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes:///nope"})
			code := rpcError(t, err).Code

			got := obs.snapshot()
			require.Contains(t, got.requests, "tools/call ok")
			require.Contains(t, got.requests, "tools/call "+strconv.FormatInt(code, 10), "counted as the read's not found")
			require.Contains(t, got.requests, "resources/read "+strconv.FormatInt(code, 10))
		})
	}
}
