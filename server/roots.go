package server

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Root is a root a client announced in answer to roots/list: its URI (the
// spec says file:// for now) and an optional name. The server checks
// nothing about it: what a root may grant is the caller's decision.
type Root struct {
	URI, Name string
}

// RootsFunc receives the whole list of roots the client announces now,
// each time it is read. ctx ends with the session.
type RootsFunc func(ctx context.Context, roots []Root)

// WithRoots makes ServeStdio ask its client for its roots (roots/list)
// once the session is initialized and again at every
// notifications/roots/list_changed, and hand each list to f, one call at a
// time, the latest list last. Default: nil, the server never asks.
//
// Only stdio asks: its one client is the user who started the server.
// Over HTTP the roots of one client are not the server's to act on for
// every other client, and f is never called. A client that declares no
// roots capability is never asked; a 2026-07-28 client has none (the
// feature is deprecated there).
//
// # Security
//
// Roots are whatever the client sends: f must treat them as untrusted.
func (c Config) WithRoots(f RootsFunc) Config {
	c.roots = f
	return c
}

// rootsWatch asks a session for its roots when told to, one request at a
// time: a change announced while a request is in flight asks again after
// it, so the last list read is never older than the last change.
type rootsWatch struct {
	kick chan *mcp.ServerSession // capacity 1: one pending ask
}

func newRootsWatch() *rootsWatch { return &rootsWatch{kick: make(chan *mcp.ServerSession, 1)} }

// changed asks for ss's roots again; it never blocks.
func (w *rootsWatch) changed(ss *mcp.ServerSession) {
	if ss == nil {
		return
	}
	select {
	case w.kick <- ss:
	default: // an ask is pending already, and will read the latest list
	}
}

// rootsHandlers are the go-sdk hooks that start an ask: the session's
// initialized notification and notifications/roots/list_changed.
func (s *Server) rootsHandlers(opts *mcp.ServerOptions) {
	opts.InitializedHandler = func(_ context.Context, req *mcp.InitializedRequest) {
		s.rootsWatch.changed(req.Session)
	}
	//lint:ignore SA1019 roots are how clients such as VS Code offer workspace folders (2025 revisions)
	opts.RootsListChangedHandler = func(_ context.Context, req *mcp.RootsListChangedRequest) {
		s.rootsWatch.changed(req.Session)
	}
}

// watchRoots serves the asks until ctx ends, and returns a function that
// waits for it to have returned. It does nothing without WithRoots.
func (s *Server) watchRoots(ctx context.Context) (wait func()) {
	if s.cfg.roots == nil {
		return func() {}
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case ss := <-s.rootsWatch.kick:
				s.readRoots(ctx, ss)
			}
		}
	})
	return wg.Wait
}

// readRoots asks ss for its roots, under the request timeout, and hands
// them to the RootsFunc. A client without the roots capability is not
// asked; a failed ask is logged and leaves the last list in force.
func (s *Server) readRoots(ctx context.Context, ss *mcp.ServerSession) {
	p := ss.InitializeParams()
	//lint:ignore SA1019 RootsV2 is the roots capability, present when the client declared it
	if p == nil || p.Capabilities == nil || p.Capabilities.RootsV2 == nil {
		s.log.Info("client announces no roots: none granted")
		return
	}
	askCtx, cancel := context.WithTimeout(ctx, s.cfg.requestTimeout)
	defer cancel()
	//lint:ignore SA1019 roots are how clients such as VS Code offer workspace folders (2025 revisions)
	res, err := ss.ListRoots(askCtx, nil)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("roots/list failed: the roots granted before stay in force", "error", err.Error())
		}
		return
	}
	roots := make([]Root, 0, len(res.Roots))
	for _, r := range res.Roots {
		if r != nil {
			roots = append(roots, Root{URI: r.URI, Name: r.Name})
		}
	}
	s.cfg.roots(ctx, roots)
}
