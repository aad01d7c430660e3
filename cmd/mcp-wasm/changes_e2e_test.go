package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// The live-resource tests edit files under the directory granted to the
// real binary and wait, generously, for the notifications the official
// go-sdk client receives.

const liveWait = testkit.Wait

// heard records the change notifications a client receives.
type heard struct {
	mu      sync.Mutex
	updated map[string]int
	ids     []any // subscription id of each updated notification
	lists   int
}

func (h *heard) count(uri string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.updated[uri]
}

func (h *heard) listChanges() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lists
}

// liveClient is a go-sdk client that records change notifications.
func liveClient() (*mcp.Client, *heard) {
	h := &heard{updated: map[string]int{}}
	return mcp.NewClient(&mcp.Implementation{Name: "e2e-live", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.updated[r.Params.URI]++
			h.ids = append(h.ids, r.Params.Meta[mcp.MetaKeySubscriptionID])
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.lists++
		},
	}), h
}

// connectLive is connect (stdio) with a liveClient.
func connectLive(t *testing.T, revision string, args ...string) (*mcp.ClientSession, *heard) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Wait)
	t.Cleanup(cancel)
	full := append([]string{"serve", "--cache-dir", testguest.CompileCache(), "--log-level", "warn"}, patientArgs(args)...)
	cmd := exec.CommandContext(ctx, binary(t), full...)
	cmd.Stderr = testWriter{t}
	client, h := liveClient()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	requireLiveCaps(t, cs)
	return cs, h
}

func requireLiveCaps(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	caps := cs.InitializeResult().Capabilities.Resources
	require.True(t, caps.Subscribe && caps.ListChanged, "live resources are declared")
}

func liveTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"a.txt", "b.txt"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644))
	}
	return dir
}

// editUntil edits the file until its notification is heard: the first
// edits may precede the host's baseline or the listen's acknowledgement.
func editUntil(t *testing.T, h *heard, dir, name string) {
	t.Helper()
	uri := uriIn(t, dir, name)
	before := h.count(uri)
	require.Eventually(t, func() bool {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(time.Now().String()), 0o644))
		return h.count(uri) > before
	}, liveWait, 500*time.Millisecond, "no notifications/resources/updated for %s", name)
}

// waitCount waits until uri was announced more than before.
func waitCount(t *testing.T, h *heard, uri string, before int) {
	t.Helper()
	require.Eventually(t, func() bool { return h.count(uri) > before }, liveWait, 10*time.Millisecond, uri)
}

// checkLive runs the common script: updates for subscribed files only,
// list changes on add and remove, nothing after unsubscribing.
func checkLive(t *testing.T, cs *mcp.ClientSession, h *heard, dir string) {
	ctx := t.Context()
	require.NoError(t, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uriIn(t, dir, "a.txt")}))
	require.NoError(t, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uriIn(t, dir, "b.txt")}))
	editUntil(t, h, dir, "a.txt")
	editUntil(t, h, dir, "b.txt")

	lists := h.listChanges()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "c.txt"), []byte("new"), 0o644))
	require.Eventually(t, func() bool { return h.listChanges() > lists }, liveWait, 10*time.Millisecond, "adding a file: list_changed")
	require.Zero(t, h.count(uriIn(t, dir, "c.txt")), "not subscribed")
	lists = h.listChanges()
	require.NoError(t, os.Remove(filepath.Join(dir, "c.txt")))
	require.Eventually(t, func() bool { return h.listChanges() > lists }, liveWait, 10*time.Millisecond, "removing a file: list_changed")

	require.NoError(t, cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uriIn(t, dir, "a.txt")}))
	editUntil(t, h, dir, "b.txt") // the unsubscription has taken effect by then
	a, b := h.count(uriIn(t, dir, "a.txt")), h.count(uriIn(t, dir, "b.txt"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("unheard"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.txt"), []byte("heard"), 0o644))
	waitCount(t, h, uriIn(t, dir, "b.txt"), b) // a's notification, if any, would come first
	require.Equal(t, a, h.count(uriIn(t, dir, "a.txt")), "no notification after unsubscribing")
}

// TestE2E_liveLegacy: resources/subscribe on 2025-11-25.
func TestE2E_liveLegacy(t *testing.T) {
	dir := liveTree(t)
	cs, h := connectLive(t, "2025-11-25", "--allow-dir", dir)
	checkLive(t, cs, h, dir)
	h.mu.Lock()
	defer h.mu.Unlock()
	require.Nil(t, h.ids[0], "no subscription id on the handshake revisions")
}

// TestE2E_liveModern: subscriptions/listen on 2026-07-28, which the go-sdk
// client opens for list changes at connect and for each Subscribe.
func TestE2E_liveModern(t *testing.T) {
	dir := liveTree(t)
	cs, h := connectLive(t, "2026-07-28", "--allow-dir", dir)
	checkLive(t, cs, h, dir)
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, id := range h.ids {
		require.NotNil(t, id, "every notification on a listen carries its subscription id")
	}
}

// TestE2E_liveHTTP: the same over Streamable HTTP, where legacy
// notifications travel on the session's event stream and modern ones on
// the listen's.
func TestE2E_liveHTTP(t *testing.T) {
	dir := liveTree(t)
	srv := startHTTP(t, nil, "--allow-dir", dir)
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) {
			client, h := liveClient()
			cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: srv.url, MaxRetries: -1},
				&mcp.ClientSessionOptions{ProtocolVersion: rev})
			require.NoError(t, err)
			t.Cleanup(func() { _ = cs.Close() })
			requireLiveCaps(t, cs)
			checkLive(t, cs, h, dir)
		})
	}
}

// TestE2E_liveBounded: a session cannot make the host hold more than 1000
// subscriptions.
func TestE2E_liveBounded(t *testing.T) {
	dir := liveTree(t)
	cs, _ := connectLive(t, "2025-11-25", "--allow-dir", dir)
	ctx := t.Context()
	for i := range 1000 {
		require.NoError(t, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uriIn(t, dir, fmt.Sprintf("n%d.txt", i))}))
	}
	err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uriIn(t, dir, "one-too-many.txt")})
	require.Equal(t, int64(jsonrpc.CodeInvalidParams), rpcCode(t, err))
	require.Contains(t, err.Error(), "at most 1000 per session")
	require.NoError(t, cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uriIn(t, dir, "n0.txt")}))
	require.NoError(t, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uriIn(t, dir, "one-too-many.txt")}))
}
