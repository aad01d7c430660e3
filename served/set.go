// Package served is the set of providers mcp-wasm serves: it loads the
// providers a config names (resolving each module through one Resolver,
// which checks its pin and signature policy; Verified reads files and
// oci:// references), gives each the name and scheme prefix the operator
// chose, and keeps the set in step with its config: a reload loads and checks a whole new
// generation before it is swapped in atomically, and the old one is closed
// once the requests that started on it have returned. It runs the change
// feeds of the current providers and gives one stats view per provider,
// so that metrics, readiness and live resources follow the set without
// guessing what a provider is.
//
//	loader := served.NewLoader(rt, served.ResolveFile, log)
//	first, err := loader.Load(ctx, cfg)
//	// serverProviders and publishTo adapt *Provider to the server's
//	// interface (cmd/mcp-wasm/serve.go has both).
//	srv, err := server.New(server.NewConfig().WithProviders(serverProviders(first.Providers())...))
//	set := served.NewSet(loader, first, served.SetOptions{Reread: reread, Publish: publishTo(srv)})
//	defer set.Close(ctx)
//	go set.Watch(ctx, hup, true, time.Second) // SIGHUP and file changes reload
//
// It knows nothing of MCP: the server is reached through the Publish and
// ChangeSink functions the caller gives. It refuses to do anything else:
// it parses no config (package config does) and runs no guest code but
// through the runtime.
package served

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/mcp-wasm/mcp-wasm/config"
)

// Publish makes next the providers the server serves, atomically, and
// returns a channel closed once no request runs on the providers it
// replaced (server.Server.SetProviders, adapted). On error nothing changed.
type Publish func(next []*Provider) (drained <-chan struct{}, err error)

// SetOptions are what a Set needs beyond its first generation.
type SetOptions struct {
	// Reread reads the config again for a reload (config.Read of the same
	// file); nil: the set never reloads (providers from flags).
	Reread func() (*config.Config, error)
	// Publish swaps a new generation into the server; required to reload.
	Publish Publish
	// PublishGeneration, when set, is used instead of Publish: it gets the
	// whole generation, whose config holds what else must swap with the
	// providers (the access rules).
	PublishGeneration func(next *Generation) (drained <-chan struct{}, err error)
	// Log receives reload and feed events; nil discards them.
	Log *slog.Logger
}

// Set is the providers being served: the current generation, replaced as
// a whole by Reload. It is safe for concurrent use.
type Set struct {
	loader  *Loader
	reread  func() (*config.Config, error)
	publish Publish
	pubGen  func(*Generation) (<-chan struct{}, error)
	log     *slog.Logger
	stop    chan struct{} // closed by Close: retired generations close at once

	current atomic.Pointer[Generation] // read without waiting for a reload

	mu       sync.Mutex           // serializes Reload and Close; guards below
	started  *config.Config       // the config serve started with
	stamps   map[string]fileStamp // watched files at the last reload attempt (watch.go)
	retiring sync.WaitGroup       // goroutines closing retired generations
	closed   bool

	subMu sync.Mutex
	subs  []func(*Generation) // told of every new generation, in order

	feeds feeds // feeds.go
}

// NewSet returns the set serving first.
func NewSet(loader *Loader, first *Generation, opts SetOptions) *Set {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Set{loader: loader, reread: opts.Reread, publish: opts.Publish, pubGen: opts.PublishGeneration, log: log,
		stop: make(chan struct{}), started: first.cfg, stamps: first.stamps}
	s.current.Store(first)
	return s
}

// Current returns the generation being served now. It never waits for a
// reload in progress.
func (s *Set) Current() *Generation { return s.current.Load() }

// Providers returns the providers served now.
func (s *Set) Providers() []*Provider { return s.Current().Providers() }

// Ready reports whether some provider served now can serve: one that is
// not quarantined.
func (s *Set) Ready() bool {
	for _, p := range s.Providers() {
		if !p.Stats().Quarantined {
			return true
		}
	}
	return false
}

// Subscribe calls f with every generation swapped in from now on, in
// order, after the server serves it. f must return quickly.
func (s *Set) Subscribe(f func(*Generation)) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	s.subs = append(s.subs, f)
}

// Reload reads the config again, loads every provider of it and, only if
// all of that succeeds, publishes the new generation; the old one is
// closed once its requests have returned. On any error the old generation
// keeps serving, and the error is logged and returned.
func (s *Set) Reload(ctx context.Context, reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cfg, err := s.load(ctx)
	if err != nil {
		if ctx.Err() != nil {
			s.log.Info("reload abandoned: shutting down", "reason", reason)
			return err
		}
		s.log.Error("reload refused: still serving the previous providers", "reason", reason, "error", err.Error())
		return err
	}
	if !reflect.DeepEqual(cfg.Server, s.started.Server) {
		s.log.Warn("server settings changed in the config file: they take effect on restart", "config", cfg.File)
	}
	if cfg.MaxTimeout() > s.started.MaxTimeout() {
		s.log.Warn("a provider timeout grew past the one serve started with: calls are still cut at the old one plus 1s until restart",
			"started_with", s.started.MaxTimeout(), "now", cfg.MaxTimeout())
	}
	s.log.Info("providers reloaded", "reason", reason, "providers", len(cfg.Providers), "config", cfg.File)
	return nil
}

// load rereads, loads and publishes; s.mu is held.
func (s *Set) load(ctx context.Context) (*config.Config, error) {
	switch {
	case s.closed:
		return nil, errors.New("reload after close")
	case s.reread == nil:
		return nil, errors.New("providers come from flags: restart to change them (or serve --config FILE)")
	case s.publish == nil && s.pubGen == nil:
		return nil, errors.New("reload before the server started")
	}
	// The config file is stamped before it is read, its modules after: a
	// change while loading is seen by the next poll.
	configStamp := stampFiles(watchedFiles(&config.Config{File: s.started.File}))
	cfg, err := s.reread()
	watched := s.Current().cfg
	if err == nil {
		watched = cfg
	}
	s.stamps = stampFiles(watchedFiles(watched))
	maps.Copy(s.stamps, configStamp)
	if err != nil {
		return nil, err
	}
	next, err := s.loader.Load(ctx, cfg)
	if err != nil {
		return nil, err
	}
	var drained <-chan struct{}
	if s.pubGen != nil {
		drained, err = s.pubGen(next)
	} else {
		drained, err = s.publish(next.Providers())
	}
	if err != nil {
		next.Close(ctx)
		return nil, err
	}
	old := s.current.Swap(next)
	s.retire(ctx, old, drained)
	s.notify(next)
	return cfg, nil
}

// retire closes old once drained is closed, or at once after Close.
func (s *Set) retire(ctx context.Context, old *Generation, drained <-chan struct{}) {
	s.retiring.Add(1)
	go func() {
		defer s.retiring.Done()
		select {
		case <-drained:
		case <-s.stop:
		}
		old.Close(ctx)
	}()
}

func (s *Set) notify(g *Generation) {
	s.subMu.Lock()
	subs := append([]func(*Generation){}, s.subs...)
	s.subMu.Unlock()
	for _, f := range subs {
		f(g)
	}
}

// Close stops the change feeds, closes retired generations at once, then
// the current one. Call it once the server has stopped serving.
func (s *Set) Close(ctx context.Context) {
	s.feeds.close()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.stop)
	s.mu.Unlock()
	s.retiring.Wait()
	s.Current().Close(ctx)
}
