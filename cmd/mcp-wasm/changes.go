package main

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// Live resources. Every served provider that declares the changes
// operation gets a change feed (runtime.Provider.WatchChanges): the host
// asks it what changed every second while some client would hear of it
// (server.Interested), watches the directories and files granted to it and
// passes the guest paths that changed, and forwards the answers to the
// server, which checks them against the provider's uri space, coalesces
// them and notifies the subscribed sessions and listeners.

// feedSync is how often the feeds are matched to the served providers, so
// that a hot reload starts and stops them.
const feedSync = time.Second

// changeSource is a served provider with a change feed: a runtime
// provider, possibly wrapped (a config file may rename it).
type changeSource interface {
	server.Provider
	Supports(op string) bool
	WatchChanges(ctx context.Context, cfg runtime.ChangeFeedConfig, report func(*abi.ChangesResult)) error
}

// changeFeeds runs one change feed per served provider that reports
// changes, following the server's provider set.
type changeFeeds struct {
	srv    *server.Server
	log    *slog.Logger
	cfg    runtime.ChangeFeedConfig
	cancel context.CancelFunc
	wg     sync.WaitGroup          // the sync loop and every feed
	feeds  map[changeSource]func() // running feeds and how to stop them; the sync loop's
}

// startChangeFeeds starts the feeds; close stops them.
func startChangeFeeds(ctx context.Context, srv *server.Server, log *slog.Logger) *changeFeeds {
	ctx, cancel := context.WithCancel(ctx)
	f := &changeFeeds{srv: srv, log: log, cancel: cancel,
		cfg:   runtime.NewChangeFeedConfig().WithActive(srv.Interested),
		feeds: map[changeSource]func(){}}
	f.sync(ctx)
	f.wg.Go(func() { f.loop(ctx) })
	return f
}

func (f *changeFeeds) loop(ctx context.Context) {
	t := time.NewTicker(feedSync)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f.sync(ctx)
		}
	}
}

// sync starts a feed for each served provider that reports changes and
// has none, and stops the feeds of providers no longer served.
func (f *changeFeeds) sync(ctx context.Context) {
	served := map[changeSource]bool{}
	for _, p := range f.srv.Providers() {
		if cs, ok := p.(changeSource); ok && cs.Supports(abi.OpChanges) {
			served[cs] = true
			if f.feeds[cs] == nil {
				f.start(ctx, cs)
			}
		}
	}
	for cs, stop := range f.feeds {
		if !served[cs] {
			stop()
			delete(f.feeds, cs)
		}
	}
}

// start runs the feed of cs, forwarding what it reports under the name the
// server knows it by.
func (f *changeFeeds) start(ctx context.Context, cs changeSource) {
	ctx, cancel := context.WithCancel(ctx)
	name := cs.Describe().Name
	f.feeds[cs] = cancel
	f.wg.Go(func() {
		err := cs.WatchChanges(ctx, f.cfg, func(res *abi.ChangesResult) {
			f.srv.ResourcesUpdated(name, res.Updated...)
			if res.ListChanged {
				f.srv.ResourceListChanged()
			}
		})
		if err != nil {
			f.log.Warn("provider changes are not watched", "provider", name, "error", err)
		}
	})
}

// close stops every feed and waits for them.
func (f *changeFeeds) close() {
	f.cancel()
	f.wg.Wait()
}
