package server

import (
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server serves the resources of a set of providers over MCP. It is safe
// for concurrent use and holds no per-request state. SetProviders replaces
// the set atomically (server/reload.go).
type Server struct {
	// fixed at creation
	cfg        Config
	log        *slog.Logger
	auditLog   *slog.Logger // audit lines, audit.go
	cursors    cursorCodec
	mcp        *mcp.Server
	subs       *subscriptions // what clients asked to hear about, subscriptions.go
	handshakes handshakes     // sessions past their legacy initialize, handshake.go
	notify     *notifier      // coalesced change notifications, notify.go
	out        *outboxes      // per-session queues of change notifications, outbox.go
	rootsWatch *rootsWatch    // asks for the client's roots, roots.go
	lists      *listCache     // provider pages kept while unchanged, listcache.go
	hearers    hearers        // who each subscribed session is, aclserve.go
	fleet      *fleet         // sealed sessions and the bus, nil outside a fleet (bus.go)

	setMu sync.RWMutex
	set   *providerSet // the current providers; requests take it with acquire
}

// New validates cfg, checks the providers (valid describe, distinct names,
// disjoint uri spaces) and returns a Server ready to serve.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("configuring server: %w", err)
	}
	if cfg.requestTimeout == 0 {
		cfg.requestTimeout = max(DefaultRequestTimeout, cfg.callTimeout)
	}
	log := cfg.logger
	if log == nil {
		log = slog.Default()
	}
	backends, err := backendsOf(cfg.providers, log)
	if err != nil {
		return nil, err
	}
	key := cfg.cursorKey
	if key == nil {
		key = make([]byte, 32)
		_, _ = rand.Read(key) // crypto/rand.Read never fails on supported platforms
	}
	s := &Server{cfg: cfg, log: log, cursors: cursorCodec{key: key, previous: cfg.oldCursorKeys}, set: newProviderSet(backends)}
	s.set.rules = cfg.rules
	s.subs, s.notify = newSubscriptions(cfg.liveLimits()), newNotifier(cfg.notifyDelay, s.deliver)
	s.out = newOutboxes(3*cfg.maxSubs+1, sendOne, log, s.laggard)
	s.rootsWatch = newRootsWatch()
	s.lists = newListCache(cfg.listCache)
	if s.fleet, err = cfg.newFleet(); err != nil {
		return nil, err
	}
	opts := &mcp.ServerOptions{
		Logger:       slog.New(demoted{log.Handler()}).With("component", "go-sdk"),
		Instructions: cfg.instructions,
		Capabilities: &mcp.ServerCapabilities{
			Resources:   &mcp.ResourceCapabilities{Subscribe: true, ListChanged: true},
			Completions: &mcp.CompletionCapabilities{},
			Tools:       &mcp.ToolCapabilities{},    // always empty: see empty.go
			Prompts:     &mcp.PromptCapabilities{},  // always empty: see empty.go
			Extensions:  skillsCapability(backends), // skills.go
		},
		SubscribeHandler:          s.subscribeHandler,
		UnsubscribeHandler:        s.unsubscribeHandler,
		SupportedProtocolVersions: supportedRevisions,
	}
	if cfg.roots != nil {
		s.rootsHandlers(opts)
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: cfg.name, Version: cfg.version}, opts)
	if err := s.addSkillMethods(); err != nil { // skills.go
		return nil, fmt.Errorf("configuring server: %w", err)
	}
	s.mcp.AddReceivingMiddleware(s.dispatch)
	s.addObserver() // before initLive: its sending middleware must be innermost
	s.initLive()
	s.mcp.AddReceivingMiddleware(s.gated)
	s.mcp.AddReceivingMiddleware(s.audited) // added last, runs first
	s.auditLog = cmp.Or(cfg.auditLogger, log).With("audit", true)
	return s, nil
}

// backendsOf describes and validates every provider, sorts them by name and
// refuses duplicate names and overlapping uri spaces (abi.Conflicts; a
// duplicate name is reported first).
func backendsOf(ps []Provider, log *slog.Logger) ([]*backend, error) {
	backends := make([]*backend, 0, len(ps))
	for _, p := range ps {
		d := p.Describe()
		if err := d.Validate(); err != nil {
			return nil, fmt.Errorf("%w: provider %q: %w: rebuild the provider against abi v%d", ErrInvalidDescribe, clip(d.Name), err, abi.Version)
		}
		backends = append(backends, newBackend(p, d, log))
	}
	slices.SortFunc(backends, func(a, b *backend) int { return cmp.Compare(a.name, b.name) })
	descs := make([]abi.Describe, len(backends))
	for i, m := range backends {
		descs[i] = abi.Describe{Name: m.name, URISpace: m.space}
	}
	if cs := abi.Conflicts(descs); len(cs) > 0 {
		i := max(0, slices.IndexFunc(cs, func(c abi.Conflict) bool { return c.SameName }))
		return nil, conflictError(cs[i], descs)
	}
	return backends, nil
}

// conflictError says why two providers cannot be served together, and the fix.
func conflictError(c abi.Conflict, descs []abi.Describe) error {
	if c.SameName {
		return fmt.Errorf("%w: two providers are named %q: load only one of them", ErrDuplicateName, c.Name)
	}
	return fmt.Errorf("%w: provider %q claims %s and provider %q claims %s: "+
		"load only one of them, or configure them with disjoint uri spaces (another scheme, authority or path prefix)",
		ErrOverlap, descs[c.A].Name, c.RootA, descs[c.B].Name, c.RootB)
}

// listCacheHint is the cache scope of every list page: private if any
// provider says its results are private. One scope for all pages, as
// 2026-07-28 requires; each page's ttl is its providers' (list.go).
func listCacheHint(backends []*backend) abi.CacheHint {
	for _, m := range backends {
		if m.cache != nil && m.cache.Scope == abi.ScopePrivate {
			return abi.CacheHint{Scope: abi.ScopePrivate}
		}
	}
	return abi.CacheHint{Scope: abi.ScopePublic}
}

// dispatch is the receiving middleware: it serves the resource methods
// itself, lets go-sdk serve the lifecycle, and refuses everything else.
func (s *Server) dispatch(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch req.(type) {
		case *mcp.ListResourcesRequest, *mcp.ListResourceTemplatesRequest, *mcp.ReadResourceRequest, *mcp.CompleteRequest,
			*mcp.CallToolRequest:
			// One deadline for the whole request, every provider call in it.
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, s.cfg.requestTimeout)
			defer cancel()
		}
		var res mcp.Result
		var err error
		switch r := req.(type) {
		case *mcp.ListResourcesRequest:
			res, err = s.listResources(ctx, r)
		case *mcp.ListResourceTemplatesRequest:
			res, err = s.listTemplates(ctx, r)
		case *mcp.ReadResourceRequest:
			res, err = s.readResource(ctx, r)
		case *mcp.CompleteRequest:
			res, err = s.complete(ctx, r)
		case *mcp.CallToolRequest:
			res, err = s.callTool(ctx, r)
		default:
			return s.dispatchRest(ctx, next, method, req)
		}
		return res, served(ctx, err)
	}
}

// dispatchRest serves what is not a resource request: the tool and prompt lists,
// live resources through go-sdk, the lifecycle, and refusals.
func (s *Server) dispatchRest(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	switch r := req.(type) {
	case *mcp.ListToolsRequest:
		return s.listTools(ctx, r)
	case *mcp.ListPromptsRequest:
		return s.listPrompts(ctx, r)
	}
	switch {
	case method == "initialize", method == "ping", method == "server/discover", method == "logging/setLevel",
		method == methodSubscribe, method == methodUnsubscribe, strings.HasPrefix(method, "notifications/"):
		return next(ctx, method, req)
	case method == methodListen:
		return s.listen(ctx, next, method, req)
	case isSkillMethod(method): // skills.go
		ctx, cancel := context.WithTimeout(ctx, s.cfg.requestTimeout)
		defer cancel()
		res, err := next(ctx, method, req)
		return res, served(ctx, err)
	}
	return nil, methodNotFound(method)
}
