package server

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// memBus is a Bus in memory for the server's own tests: Publish hands the
// event to every server at once, claims never expire. internal/bus tests
// the Redis one, cmd/mcp-wasm's TestE2E_Fleet the whole.
type memBus struct {
	mu      sync.Mutex
	servers []*Server
	claims  map[string]bool
	subs    map[string]map[string]string
}

func newMemBus() *memBus {
	return &memBus{claims: map[string]bool{}, subs: map[string]map[string]string{}}
}

func (b *memBus) Publish(_ context.Context, ev BusEvent) error {
	b.mu.Lock()
	servers := b.servers
	b.mu.Unlock()
	for _, s := range servers {
		s.onBusEvent(ev)
	}
	return nil
}

func (b *memBus) Claim(_ context.Context, key string, _ time.Duration) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	won := !b.claims[key]
	b.claims[key] = true
	return won, nil
}

func (b *memBus) Claimed(_ context.Context, key string) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.claims[key], nil
}

// forget drops a claim, as its expiry would.
func (b *memBus) forget(key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.claims, key)
}

func (b *memBus) PutSubscription(_ context.Context, session, key, uri string, _ time.Duration) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs[session] == nil {
		b.subs[session] = map[string]string{}
	}
	b.subs[session][key] = uri
	return nil
}

func (b *memBus) DeleteSubscription(_ context.Context, session, key string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.subs[session], key)
	return nil
}

func (b *memBus) Subscriptions(_ context.Context, session string) (map[string]string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]string{}
	for k, v := range b.subs[session] {
		out[k] = v
	}
	return out, nil
}

func (b *memBus) Run(ctx context.Context, _ func(BusEvent)) { <-ctx.Done() }

// TestBus_onceAcrossReplicas: a legacy client behind round robin
// subscribes through whichever replica; a change that both replicas see
// reaches it once, from the replica holding its stream; the same change
// seen late (within the change window) is not announced again; after the
// window it is a new change.
func TestBus_onceAcrossReplicas(t *testing.T) {
	bus := newMemBus()
	var servers []*Server
	rr := &roundRobin{}
	var urls []string
	for range 2 {
		s := newServer(t, NewConfig().WithProviders(notesProvider()).WithSessionKeys(0, sealKeyA).WithBus(bus, time.Hour))
		servers = append(servers, s)
		urls = append(urls, serveHTTP(t, s, NewHTTPConfig()))
		rr.hosts = append(rr.hosts, hostOf(t, urls[len(urls)-1]))
	}
	bus.servers = servers

	var hello, empty atomic.Int64
	client := mcp.NewClient(&mcp.Implementation{Name: "bus-test", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			switch r.Params.URI {
			case "notes:///hello":
				hello.Add(1)
			case "notes:///empty":
				empty.Add(1)
			}
		},
	})
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: urls[0], HTTPClient: &http.Client{Transport: rr}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	for _, uri := range []string{"notes:///hello", "notes:///empty"} {
		require.NoError(t, cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}))
	}
	holder := func() int {
		for i, s := range servers {
			s.fleet.mu.Lock()
			n := len(s.fleet.streams)
			s.fleet.mu.Unlock()
			if n > 0 {
				return i
			}
		}
		return -1
	}
	testkit.Eventually(t, func() bool { return holder() >= 0 }, "the client opens its event stream")
	// The subscriptions reach the holder, whichever replica took them.
	testkit.Eventually(t, func() bool {
		return servers[holder()].subs.subscribed(subscriptionKeyOf("notes:///hello")) &&
			servers[holder()].subs.subscribed(subscriptionKeyOf("notes:///empty"))
	}, "the stream's replica knows the subscriptions")

	servers[0].ResourcesUpdated("notes", "notes:///hello")
	servers[1].ResourcesUpdated("notes", "notes:///hello") // the same change, seen by the other replica
	testkit.Eventually(t, func() bool { return hello.Load() == 1 }, "the update arrives")
	servers[1-holder()].ResourcesUpdated("notes", "notes:///hello") // seen late, within the window
	servers[0].ResourcesUpdated("notes", "notes:///empty")          // a sentinel, after it on the same stream
	testkit.Eventually(t, func() bool { return empty.Load() == 1 }, "the sentinel arrives")
	require.Equal(t, int64(1), hello.Load(), "one change, one notification")

	bus.forget("chg:u:" + subscriptionKeyOf("notes:///hello")) // the window is over
	servers[1-holder()].ResourcesUpdated("notes", "notes:///hello")
	testkit.Eventually(t, func() bool { return hello.Load() == 2 }, "a new change is announced")
}
