package server

import (
	"fmt"
	"log/slog"
	"slices"
	"time"
)

// Limits and defaults of a Config.
const (
	// DefaultPageSize is the default number of items in one resources/list
	// or resources/templates/list page: clients that stop at 64 pages (the
	// TypeScript SDK's listResources, the Inspector) then list 128,000
	// resources. A page of the files provider's items is about 190 bytes
	// an item, so some 400 KB of JSON (docs/protocol.md, "Paging").
	DefaultPageSize = 2000
	// MaxPageSize is the largest page size a Config accepts: 640,000
	// resources in 64 pages, a page of some 2 MB of JSON. A page may span
	// several provider pages (each at most abi.MaxListItems items).
	MaxPageSize = 10_000
	// DefaultCallTimeout is the default deadline of one provider call.
	DefaultCallTimeout = 10 * time.Second
	// DefaultRequestTimeout is the default deadline of one client request
	// (a list page, a read, a completion), every provider call it makes
	// included: half the 60 s after which common clients give up, so that
	// a partial list page still reaches the client.
	DefaultRequestTimeout = 30 * time.Second
	// DefaultPageTime is the default time one list page may spend calling
	// providers before it returns what it has (Config.WithPageTime).
	DefaultPageTime = 2 * time.Second
	// minCursorKey is the shortest HMAC key WithCursorKey accepts.
	minCursorKey = 16
)

// Config configures a Server. It is an immutable value: every With method
// returns a modified copy, and New validates it once.
type Config struct {
	providers   []Provider
	logger      *slog.Logger
	pageSize    int
	callTimeout time.Duration
	// requestTimeout is the deadline of one client request; 0 until New
	// resolves the default.
	requestTimeout time.Duration
	name           string
	version        string
	instructions   string
	cursorKey      []byte
	oldCursorKeys  [][]byte    // accepted, never signed with
	fleetCfg       fleetConfig // fleet_config.go
	maxSubs        int         // live.go
	liveShares     liveShares  // live.go
	// stdioWriteTimeout is the deadline of each piece of a stdio write
	// (stdio.go): DefaultWriteTimeout, shortened by tests.
	stdioWriteTimeout time.Duration
	notifyDelay       time.Duration // live.go
	auditLogger       *slog.Logger
	observer          Observer      // observer.go
	resourceTools     bool          // tools.go
	pageTime          time.Duration // list.go
	drainTimeout      time.Duration // stdio.go; 0: the request timeout
	inputEnded        func()        // stdio.go
	roots             RootsFunc     // roots.go
	listCache         int64         // listcache.go
	rules             Rules         // acl.go
}

// NewConfig returns the default configuration: no providers, slog.Default
// logger, page size DefaultPageSize, call timeout DefaultCallTimeout,
// request timeout DefaultRequestTimeout (or the call timeout if longer), server
// name "mcp-wasm" version "dev", and a random cursor key.
func NewConfig() Config {
	return Config{
		pageSize:    DefaultPageSize,
		callTimeout: DefaultCallTimeout,
		maxSubs:     DefaultMaxSubscriptions,
		liveShares:  defaultLiveShares,
		// stdio gets HTTP's default write timeout: it has one client,
		// whom only its own lag can harm, so it is not a setting.
		stdioWriteTimeout: DefaultWriteTimeout,
		notifyDelay:       DefaultNotifyDelay,
		pageTime:          DefaultPageTime,
		listCache:         DefaultListCache,
		name:              "mcp-wasm",
		version:           "dev",
	}
}

// WithProviders sets the providers to serve, replacing any set before. Their
// order does not matter: lists are merged in the order of provider names.
func (c Config) WithProviders(ps ...Provider) Config {
	c.providers = slices.Clone(ps)
	return c
}

// WithLogger sets the logger. Defaults to slog.Default(). Provider events
// carry a provider=NAME attribute.
func (c Config) WithLogger(l *slog.Logger) Config {
	c.logger = l
	return c
}

// WithPageSize sets the number of items in one list page, 1 to MaxPageSize.
// Defaults to DefaultPageSize.
func (c Config) WithPageSize(n int) Config {
	c.pageSize = n
	return c
}

// WithCallTimeout sets the deadline of each provider call, on top of the
// request's own context. A provider that exceeds it is left out of a list
// page, or fails a read with an internal error. Defaults to
// DefaultCallTimeout.
func (c Config) WithCallTimeout(d time.Duration) Config {
	c.callTimeout = d
	return c
}

// WithRequestTimeout sets the deadline of one client request
// (resources/list and resources/templates/list pages, resources/read,
// completion/complete), all the provider calls it makes included: a provider
// call started near its end gets only the time left, and a list page whose
// time runs out returns the items it has, with a cursor that resumes where
// it stopped. It must be at least the call timeout. Defaults to
// DefaultRequestTimeout, or the call timeout when that is longer.
func (c Config) WithRequestTimeout(d time.Duration) Config {
	c.requestTimeout = d
	return c
}

// WithPageTime sets how long one resources/list or resources/templates/list
// page may spend calling providers: once it is spent, the page starts no
// further provider call and returns the items it has, with a cursor that
// resumes where it stopped (nothing lost, nothing twice). A call in flight
// is not cut, so a page ends within the page time plus one call timeout,
// and never after the request timeout. A slow provider (one item per call,
// each call slow) thus yields short pages on time instead of holding the
// client until the request deadline. Defaults to DefaultPageTime.
func (c Config) WithPageTime(d time.Duration) Config {
	c.pageTime = d
	return c
}

// WithDrainTimeout sets how long ServeStdio lets the calls it has read
// finish once its input ends or its context is done, before it cancels
// them. Defaults to the request timeout.
func (c Config) WithDrainTimeout(d time.Duration) Config {
	c.drainTimeout = d
	return c
}

// WithInputEnded sets a function ServeStdio calls, once, when its input
// has ended (end of file, a read error) or its context is done, before it
// drains the calls in flight: a process that must exit within a bound
// after its input ends starts its clock there, whatever the calls do.
// Defaults to none.
func (c Config) WithInputEnded(f func()) Config {
	c.inputEnded = f
	return c
}

// WithImplementation sets the serverInfo name and version sent to clients.
// Defaults to "mcp-wasm" and "dev".
func (c Config) WithImplementation(name, version string) Config {
	c.name, c.version = name, version
	return c
}

// WithCursorKey sets the HMAC key that signs list cursors (at least 16
// bytes), and previous keys whose cursors are still accepted (a key
// rotation: cursors handed out before it keep working). Defaults to a
// random key drawn by New, so cursors do not survive a restart; mcp-wasm
// serve gives a key kept on disk (docs/protocol.md, "Paging").
func (c Config) WithCursorKey(key []byte, previous ...[]byte) Config {
	c.cursorKey = slices.Clone(key)
	c.oldCursorKeys = nil
	for _, k := range previous {
		c.oldCursorKeys = append(c.oldCursorKeys, slices.Clone(k))
	}
	return c
}

// WithAuditLogger sets the logger of the audit log: one line, with the
// attribute audit=true, per resource access and per refused request.
// Defaults to the logger set with WithLogger.
func (c Config) WithAuditLogger(l *slog.Logger) Config {
	c.auditLogger = l
	return c
}

// Validate reports what New would refuse in c, providers aside. New calls
// it; a caller may call it first to refuse a bad configuration before the
// costly work of loading providers.
func (c Config) Validate() error {
	if c.pageSize < 1 || c.pageSize > MaxPageSize {
		return fmt.Errorf("page size %d out of range: use 1 to %d", c.pageSize, MaxPageSize)
	}
	if c.callTimeout <= 0 {
		return fmt.Errorf("call timeout %s is not positive: use a duration such as 10s", c.callTimeout)
	}
	if c.requestTimeout != 0 && c.requestTimeout < c.callTimeout {
		return fmt.Errorf("request timeout %s is shorter than the call timeout %s: a provider call could never use its whole deadline: "+
			"give a request timeout of at least %s", c.requestTimeout, c.callTimeout, c.callTimeout)
	}
	if c.pageTime <= 0 {
		return fmt.Errorf("page time %s is not positive: use a duration such as 2s", c.pageTime)
	}
	if err := c.validateListCache(); err != nil {
		return err
	}
	if c.drainTimeout < 0 {
		return fmt.Errorf("drain timeout %s is negative: use a duration such as 8s", c.drainTimeout)
	}
	if c.name == "" || c.version == "" {
		return fmt.Errorf("implementation name and version must not be empty")
	}
	if c.cursorKey != nil && len(c.cursorKey) < minCursorKey {
		return fmt.Errorf("cursor key has %d bytes: use at least %d", len(c.cursorKey), minCursorKey)
	}
	for _, k := range c.oldCursorKeys {
		if len(k) < minCursorKey {
			return fmt.Errorf("a previous cursor key has %d bytes: use at least %d", len(k), minCursorKey)
		}
	}
	for i, p := range c.providers {
		if p == nil {
			return fmt.Errorf("provider %d is nil", i)
		}
	}
	return c.validateLive()
}

// RequestTimeout returns the deadline of one client request in effect
// (Config.WithRequestTimeout), e.g. to size a shutdown grace.
func (s *Server) RequestTimeout() time.Duration { return s.cfg.requestTimeout }
