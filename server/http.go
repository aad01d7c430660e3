package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Endpoint paths.
const (
	// MCPPath is the Streamable HTTP endpoint.
	MCPPath = "/mcp"
	// HealthzPath answers 200 while the process serves.
	HealthzPath = "/healthz"
	// ReadyzPath answers 200 when the server can serve resources, else 503.
	ReadyzPath = "/readyz"
)

// Health tells /readyz whether the server can serve: in mcp-wasm, whether
// providers are loaded and not all of them quarantined.
type Health interface {
	Ready() bool
}

// httpHandler is the HTTP face of a Server: /mcp behind the rate limit,
// the Host and Origin guard and authentication, routed to go-sdk's
// stateful handler (legacy sessions) or its stateless one (2026-07-28 and
// session-less legacy requests); both serve the same mcp.Server, hence the
// same middleware.
type httpHandler struct {
	s         *Server
	cfg       HTTPConfig
	guard     *guard
	limiter   *limiter       // nil when off
	auth      *authenticator // nil when off
	reaper    *sessionReaper
	sessions  *sessionBook
	listens   *listenBook // open 2026-07-28 listens, for notifications/cancelled
	events    *resumeStore
	stateful  http.Handler
	stateless http.Handler
	mux       *http.ServeMux

	// streams is done at shutdown: it ends the event streams that never
	// end by themselves (legacy GET streams, subscriptions/listen).
	streams    context.Context
	endStreams context.CancelFunc
}

// HTTPHandler returns the Streamable HTTP transport as an http.Handler
// serving /mcp, /healthz, /readyz and, in OAuth mode, the protected
// resource metadata. ServeStreamable serves it with graceful shutdown;
// serve it elsewhere only if you handle shutdown yourself (its event
// streams end only when their clients leave).
func (s *Server) HTTPHandler(cfg HTTPConfig) (http.Handler, error) {
	return s.newHTTPHandler(cfg)
}

func (s *Server) newHTTPHandler(cfg HTTPConfig) (*httpHandler, error) {
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("configuring http: %w", err)
	}
	g, err := newGuard(cfg)
	if err != nil {
		return nil, fmt.Errorf("configuring http: %w", err)
	}
	h := &httpHandler{s: s, cfg: cfg, guard: g, mux: http.NewServeMux(), reaper: newSessionReaper(cfg.sessionIdle, cfg.maxSessions)}
	h.sessions = newSessionBook(cfg.maxSessions, cfg.maxSessionsPerClient)
	h.listens = newListenBook()
	h.streams, h.endStreams = context.WithCancel(context.Background())
	if cfg.rate > 0 {
		h.limiter = newLimiter(cfg.rate, cfg.burst)
	}
	getServer := func(*http.Request) *mcp.Server { return s.mcp }
	sdkLog := slog.New(demoted{s.log.Handler()}).With("component", "go-sdk")
	// Host and Origin are checked by guard, with the operator's allowlist;
	// go-sdk's own localhost check would refuse allowed names on loopback.
	// Idle sessions are closed by reaper, not by go-sdk's SessionTimeout.
	// Legacy GET streams carry event ids: a client that reconnects with
	// Last-Event-ID gets what it missed, from a bounded store (http_events.go).
	h.events = newResumeStore()
	h.stateful = mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Logger: sdkLog, MaxRequestBodyBytes: cfg.maxBody, DisableLocalhostProtection: true,
		EventStore: h.events,
	})
	// 2026-07-28: a client that closes its response stream cancels the
	// request (a MUST), so the provider call is abandoned.
	h.stateless = mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Stateless: true, Logger: sdkLog, MaxRequestBodyBytes: cfg.maxBody, DisableLocalhostProtection: true,
		PropagateRequestCancellation: true,
	})
	if cfg.auth.Enabled() {
		h.auth = newAuthenticator(cfg.auth)
		h.stateful, h.stateless = withTokenInfo(h.stateful), withTokenInfo(h.stateless)
	}
	if err := h.routes(); err != nil {
		return nil, fmt.Errorf("configuring http: %w", err)
	}
	return h, nil
}

func (h *httpHandler) routes() error {
	var mcpHandler http.Handler = http.HandlerFunc(h.serveMCP)
	for _, mw := range slices.Backward(h.cfg.middleware) {
		mcpHandler = mw(mcpHandler)
	}
	h.mux.Handle(MCPPath, mcpHandler)

	h.mux.Handle("GET "+HealthzPath, h.probe(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprintln(w, "ok")
	})))
	h.mux.Handle("GET "+ReadyzPath, h.probe(http.HandlerFunc(h.serveReady)))
	h.authRoutes() // auth.go
	for _, r := range h.cfg.routes {
		if err := h.addRoute(route{r.pattern, h.probe(r.handler)}); err != nil {
			return err
		}
	}
	return nil
}

// addRoute adds an extra route; http.ServeMux panics on a bad or conflicting
// pattern, which is the operator's error here.
func (h *httpHandler) addRoute(r route) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("route %q: %v: use another pattern", r.pattern, p)
		}
	}()
	h.mux.Handle(r.pattern, r.handler)
	return nil
}

// probe guards /healthz, /readyz and the extra routes (/metrics): on a
// loopback connection they get the Host and Origin checks of /mcp, so that
// a page whose name a DNS rebinding points at 127.0.0.1 cannot read them
// (they name providers). Elsewhere they are for the operator's
// infrastructure (a load balancer probes with the pod's address as Host)
// and answer any Host. They get neither authentication nor the rate limit.
func (h *httpHandler) probe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackConn(r) {
			next.ServeHTTP(w, r)
			return
		}
		if reason := h.guard.check(r); reason != "" {
			h.forbid(w, reason)
			ctx := context.WithValue(r.Context(), clientAddrKey{}, h.clientAddr(r).String())
			h.deny(ctx, r, time.Now(), reason, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

func (h *httpHandler) serveReady(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if h.cfg.health != nil && !h.cfg.health.Ready() {
		http.Error(w, "not ready: no provider can serve", http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintln(w, "ready")
}

// limited applies the rate limit to next.
func (h *httpHandler) limited(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, wait := h.allow(r.Context(), r); !ok {
			rateLimited(w, wait)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// allow takes a token of the client of r, named by clientKey: its token's
// subject once ctx carries the authenticated principal, else its address.
func (h *httpHandler) allow(ctx context.Context, r *http.Request) (bool, time.Duration) {
	if h.limiter == nil {
		return true, 0
	}
	return h.limiter.allow(h.clientKey(ctx, r))
}

// ServeStreamable serves MCP over Streamable HTTP (HTTPS with WithTLS) on
// ln until ctx is done, then shuts down gracefully: it stops accepting,
// ends the event streams that would never end by themselves (legacy GET
// streams, subscriptions/listen), lets requests in flight finish for at
// most the shutdown grace, and then closes every connection. It returns
// nil after a shutdown caused by ctx. A non-loopback ln needs an allowed
// host (WithAllowedHosts).
func (s *Server) ServeStreamable(ctx context.Context, ln net.Listener, cfg HTTPConfig) error {
	loopback := isLoopbackAddr(ln.Addr())
	if !loopback && len(cfg.allowedHosts) == 0 {
		return fmt.Errorf("serving on %s, not a loopback address, needs allowed hosts: "+
			"give the host names clients use to reach this server (or * to accept any Host)", ln.Addr())
	}
	h, err := s.newHTTPHandler(cfg.forBind(loopback))
	if err != nil {
		return err
	}
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		TLSConfig:         cfg.tls,
	}
	busCtx, stopBus := context.WithCancel(context.Background())
	defer s.runBus(busCtx)() // bus.go; waits for the bus after stopBus
	defer stopBus()
	errc := make(chan error, 1)
	go func() {
		if cfg.tls != nil {
			errc <- hs.ServeTLS(ln, "", "")
		} else {
			errc <- hs.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		h.endStreams()
		return fmt.Errorf("serving http on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	return h.shutdown(hs, errc)
}

// shutdown drains hs: streams end now, requests in flight get the grace.
func (h *httpHandler) shutdown(hs *http.Server, errc <-chan error) error {
	h.endStreams()
	ctx, cancel := context.WithTimeout(context.Background(), h.cfg.shutdownGrace)
	defer cancel()
	if err := hs.Shutdown(ctx); err != nil {
		h.s.log.Warn("shutdown grace is over: closing connections with requests in flight", "grace", h.cfg.shutdownGrace)
		_ = hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving http: %w", err)
	}
	return nil
}

func isLoopbackAddr(a net.Addr) bool {
	ap, err := netip.ParseAddrPort(a.String())
	return err == nil && ap.Addr().Unmap().IsLoopback()
}
