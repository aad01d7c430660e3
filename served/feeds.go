package served

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// Live resources. Every served provider that declares the changes
// operation gets a change feed (runtime.Provider.WatchChanges): the host
// asks it what changed while some client would hear of it, watches the
// directories and files granted to it and passes the guest paths that
// changed, and forwards the answers, URIs prefixed, to the sink (the
// server), which checks them against the provider's uri space, coalesces
// them and notifies the subscribed sessions and listeners. The feeds
// follow the set: a reload stops the feeds of the providers it retires and
// starts those of the new ones.

// ChangeSink is told what the change feeds report; *server.Server is one.
type ChangeSink interface {
	// ResourcesUpdated reports that the named provider's resources at
	// uris changed.
	ResourcesUpdated(provider string, uris ...string)
	// ResourceListChanged reports that some provider's list changed.
	ResourceListChanged()
}

// TrackingSink is a ChangeSink that also hears which providers' changes a
// feed reports: on while the feed's calls to the provider succeed (from its
// baseline), off when they fail or the feed stops; and when the host's
// directory watch saw the provider's granted files change, whatever the
// provider then says of them (*server.Server is one: its list cache keeps
// tracked providers' pages until a change).
type TrackingSink interface {
	ChangeSink
	ChangesTracked(provider string, on bool)
	ProviderChanged(provider string)
}

// providerListSink is a ChangeSink that tells a list change only to the
// clients that may see the provider's resources (*server.Server).
type providerListSink interface {
	ProviderListChanged(provider string)
}

// feeds runs one change feed per served provider that reports changes.
type feeds struct {
	mu      sync.Mutex
	ctx     context.Context // nil until started
	cancel  context.CancelFunc
	sink    ChangeSink
	cfg     runtime.ChangeFeedConfig
	log     *slog.Logger
	wg      sync.WaitGroup
	running map[*Provider]context.CancelFunc
}

// StartFeeds runs a change feed for each served provider that reports
// changes, configured by cfg (set WithActive to ask providers only while
// someone would hear), and forwards what they report to sink, under the
// name the server knows each provider by. The feeds follow every reload
// and stop with ctx or Close. Call it once.
//
// It returns once every feed has taken its baseline (or failed to), at
// most after readyWait: a server that takes clients after it announces
// every change they could see, even one a moment after they connect.
func (s *Set) StartFeeds(ctx context.Context, sink ChangeSink, cfg runtime.ChangeFeedConfig) {
	s.mu.Lock() // no reload between taking the generation and subscribing
	f := &s.feeds
	f.mu.Lock()
	f.ctx, f.cancel = context.WithCancel(ctx)
	f.sink, f.cfg, f.log, f.running = sink, cfg, s.log, map[*Provider]context.CancelFunc{}
	f.mu.Unlock()
	s.Subscribe(func(g *Generation) { f.follow(g) })
	ready := f.follow(s.Current())
	s.mu.Unlock()
	wait := time.NewTimer(readyWait)
	defer wait.Stop()
	for _, r := range ready {
		select {
		case <-r:
		case <-wait.C:
			f.log.Warn("change feeds did not take their baseline in time; serving anyway", "waited", readyWait)
			return
		case <-ctx.Done():
			return
		}
	}
}

// readyWait bounds how long StartFeeds waits for the feeds' baselines (each
// is one guest call, under the provider's own deadline).
const readyWait = 10 * time.Second

// follow starts a feed for each provider of g that reports changes and has
// none, and stops the feeds of providers g no longer serves. It returns
// channels closed when the started feeds have their baselines.
func (f *feeds) follow(g *Generation) []chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ctx == nil || f.ctx.Err() != nil {
		return nil
	}
	var ready []chan struct{}
	served := map[*Provider]bool{}
	for _, p := range g.providers {
		if !p.reportsChanges() {
			continue
		}
		served[p] = true
		if f.running[p] == nil {
			ready = append(ready, f.start(p))
		}
	}
	for p, stop := range f.running {
		if !served[p] {
			stop()
			delete(f.running, p)
		}
	}
	return ready
}

// start runs the feed of p; f.mu is held. The channel is closed when the
// feed has its baseline, or ends without one.
func (f *feeds) start(p *Provider) chan struct{} {
	ctx, cancel := context.WithCancel(f.ctx)
	f.running[p] = cancel
	name := p.Name()
	ready := make(chan struct{})
	var once sync.Once
	markReady := func() { once.Do(func() { close(ready) }) }
	cfg := f.cfg.WithReady(markReady)
	if tracking, ok := f.sink.(TrackingSink); ok {
		cfg = cfg.WithHealth(func(ok bool) { tracking.ChangesTracked(name, ok) }).
			WithWatched(func() { tracking.ProviderChanged(name) })
	}
	f.wg.Go(func() {
		defer markReady()
		err := p.watchChanges(ctx, cfg, func(res *abi.ChangesResult) {
			if len(res.Updated) > 0 {
				f.sink.ResourcesUpdated(name, res.Updated...)
			}
			if res.ListChanged {
				if sc, ok := f.sink.(providerListSink); ok {
					sc.ProviderListChanged(name) // only to clients that may see the provider
				} else {
					f.sink.ResourceListChanged()
				}
			}
		})
		if err != nil {
			f.log.Warn("provider changes are not watched", "provider", name, "error", err)
		}
	})
	return ready
}

// close stops every feed and waits for them.
func (f *feeds) close() {
	f.mu.Lock()
	if f.cancel != nil {
		f.cancel()
	}
	clear(f.running)
	f.mu.Unlock()
	f.wg.Wait()
}

// count is how many feeds run now.
func (f *feeds) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.running)
}
