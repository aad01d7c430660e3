package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/quarantine"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/readcache"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/rootfs"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/slots"
)

// Provider is one loaded provider module: its compiled code, its validated
// description and its pool of instances. Its methods are safe for concurrent
// use; each call runs on an instance of its own.
type Provider struct {
	rt       *Runtime
	cfg      ProviderConfig
	name     string
	log      *slog.Logger
	wr       wazero.Runtime
	compiled wazero.CompiledModule
	modCfg   wazero.ModuleConfig
	mountFS  []guestMountFS
	exports  map[string]bool
	desc     abi.Describe
	space    abi.URISpace
	ops      map[string]bool
	pool     *pool
	brk      *quarantine.Breaker
	roots    []io.Closer // the mounts' roots and directories (grantsfs.go)
	closed   atomic.Bool
	calls    gate
	share    slots.Share // this provider's account with the global slots
	stats    counters
	reaper   *reaper // poolidle.go: closes idle instances
}

type counters struct {
	calls, faults, domainErrors, instantiated atomic.Uint64
	cacheHits, cacheMisses                    atomic.Uint64
	memHighWater                              atomic.Uint32
}

// Stats is a snapshot of a provider's counters.
type Stats struct {
	Calls        uint64 // calls that reached a guest
	Faults       uint64 // timeouts, traps, memory, ABI violations, oversized output
	DomainErrors uint64 // not found, invalid params, provider internal
	Instantiated uint64 // instances created, including replacements
	Live         int    // instances that exist now
	MemoryHigh   uint32 // largest linear memory seen after a call, in bytes
	Quarantined  bool
	Until        time.Time // end of the current quarantine
	Quarantines  int       // times quarantined
	CacheHits    uint64    // reads answered from the read cache
	CacheMisses  uint64    // reads that ran the guest while the cache was on
}

// Name is the provider's name: the operator's (ProviderConfig.WithName),
// else the one its describe declares.
func (p *Provider) Name() string { return p.name }

// Describe returns the provider's effective description: the module's
// validated describe with the operator's name and cache hint applied.
func (p *Provider) Describe() abi.Describe { return p.desc }

// Config returns the configuration the provider was loaded with.
func (p *Provider) Config() ProviderConfig { return p.cfg }

// Stats returns a snapshot of the provider's counters.
func (p *Provider) Stats() Stats {
	q, until, n := p.brk.State(time.Now())
	return Stats{
		Calls: p.stats.calls.Load(), Faults: p.stats.faults.Load(), DomainErrors: p.stats.domainErrors.Load(),
		Instantiated: p.stats.instantiated.Load(), Live: p.pool.liveCount(), MemoryHigh: p.stats.memHighWater.Load(),
		Quarantined: q, Until: until, Quarantines: n,
		CacheHits: p.stats.cacheHits.Load(), CacheMisses: p.stats.cacheMisses.Load(),
	}
}

// Close closes idle instances and the provider's wazero runtime; calls in
// flight fail with abi.ErrClosed or finish first.
//
// Close waits for calls in flight to return (each is bounded by its
// deadline) until ctx is done or twice the call timeout has passed, whichever
// comes first; only then does it close the instances under them.
func (p *Provider) Close(ctx context.Context) error {
	if p.closed.Swap(true) {
		return nil
	}
	wait, cancel := context.WithTimeout(ctx, 2*p.cfg.timeout)
	defer cancel()
	select {
	case <-p.calls.close():
	case <-wait.Done():
		p.log.Warn("closing provider with calls still in flight", "waited", 2*p.cfg.timeout)
	}
	p.pool.close(ctx)
	p.rt.reads.DropProvider(p)
	p.closeAll(ctx)
	return nil
}

func (p *Provider) closeAll(ctx context.Context) {
	p.stopReaper()
	_ = p.wr.Close(context.WithoutCancel(ctx))
	for _, r := range p.roots {
		_ = r.Close()
	}
}

// List returns one page of the provider's resources.
func (p *Provider) List(ctx context.Context, cursor string) (*abi.ListResult, error) {
	var out abi.ListResult
	if err := p.run(ctx, abi.OpList, abi.PageRequest{Cursor: cursor}, &out, func() error { return out.Validate(p.space) }); err != nil {
		return nil, err
	}
	return &out, nil
}

// Templates returns one page of the provider's resource templates.
func (p *Provider) Templates(ctx context.Context, cursor string) (*abi.TemplatesResult, error) {
	var out abi.TemplatesResult
	if err := p.run(ctx, abi.OpTemplates, abi.PageRequest{Cursor: cursor}, &out, func() error { return out.Validate(p.space) }); err != nil {
		return nil, err
	}
	return &out, nil
}

// Read returns the contents of uri, which must lie in the provider's URI space.
func (p *Provider) Read(ctx context.Context, uri string) (*abi.ReadResult, error) {
	if r, err := p.readCached(uri); r != nil || err != nil {
		return r, err
	}
	out := new(abi.ReadResult)
	var files rootfs.Track
	if err := p.runTracked(ctx, abi.OpRead, readInput(uri), out, func() error { return out.Validate(p.space) }, &files); err != nil {
		return nil, err
	}
	p.cacheRead(uri, out, &files)
	return out, nil
}

// readCached refuses a URI outside the provider's space and answers a read
// from the read cache when it can; nil, nil sends the read to the guest.
// Like every step before and after a guest call, it is not inlined, so
// its frame is not on the stack while the guest runs (guarded).
//
//go:noinline
func (p *Provider) readCached(uri string) (*abi.ReadResult, error) {
	if !p.space.OwnsString(uri) { // checked in full, for the error, only when refused
		if _, err := abi.ParseURI(uri); err != nil {
			return nil, fmt.Errorf("%w: %w", abi.ErrBadInput, err)
		}
		return nil, fmt.Errorf("%w: uri is outside provider %q's uri space", abi.ErrBadInput, p.name)
	}
	cache := p.rt.reads
	if r, ok := cache.Get(p, uri, time.Now()); ok {
		p.stats.cacheHits.Add(1)
		return r, nil
	}
	if cache != nil {
		p.stats.cacheMisses.Add(1)
	}
	return nil, nil
}

// cacheRead keeps a read the guest answered, if its hint allows.
//
//go:noinline
func (p *Provider) cacheRead(uri string, out *abi.ReadResult, files *rootfs.Track) {
	if cache := p.rt.reads; cache != nil {
		if until, ok := readcache.Cacheable(p.cacheHint(out), time.Now()); ok && !files.Overflow {
			cache.Put(p, uri, out, until, files.Stamps)
		}
	}
}

// cacheHint is the hint a read is cached by: its own, else the effective
// describe's, which holds the operator's (ProviderConfig.WithCacheHint)
// when one is given.
func (p *Provider) cacheHint(r *abi.ReadResult) *abi.CacheHint {
	if r.Cache != nil {
		return r.Cache
	}
	return p.desc.Cache
}

// Complete returns completion values for a template argument.
func (p *Provider) Complete(ctx context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error) {
	if len(req.Template) > abi.MaxURILength || len(req.Argument.Name) > abi.MaxTextField || len(req.Argument.Value) > abi.MaxTextField || len(req.Arguments) > 64 {
		return nil, fmt.Errorf("%w: completion request too large", abi.ErrBadInput)
	}
	var out abi.CompleteResult
	if err := p.run(ctx, abi.OpComplete, req, &out, out.Validate); err != nil {
		return nil, err
	}
	return &out, nil
}

// Changes asks the provider what changed since req.Cursor.
func (p *Provider) Changes(ctx context.Context, req abi.ChangesRequest) (*abi.ChangesResult, error) {
	if len(req.Cursor) > abi.MaxCursorLength || len(req.Paths) > abi.MaxListItems {
		return nil, fmt.Errorf("%w: changes request too large", abi.ErrBadInput)
	}
	var out abi.ChangesResult
	if err := p.run(ctx, abi.OpChanges, req, &out, func() error { return out.Validate(p.space) }); err != nil {
		return nil, err
	}
	return &out, nil
}

// Supports reports whether the provider implements op.
func (p *Provider) Supports(op string) bool { return p.ops[op] }

// run encodes the input and performs one guarded call of op.
func (p *Provider) run(ctx context.Context, op string, in any, out any, validate func() error) error {
	return p.runTracked(ctx, op, in, out, validate, nil)
}

// runTracked is run, recording the call's lookups under granted
// directories into files (when not nil).
func (p *Provider) runTracked(ctx context.Context, op string, in any, out any, validate func() error, files *rootfs.Track) error {
	start := time.Now()
	input, err := p.callInput(op, in)
	if err == nil {
		err = p.guarded(ctx, op, input, out, validate, files)
	}
	p.observe(op, start, err)
	return err
}

// callInput checks that op can be called and encodes its input.
//
//go:noinline
func (p *Provider) callInput(op string, in any) ([]byte, error) {
	if p.closed.Load() {
		return nil, fmt.Errorf("%w: provider %q", abi.ErrClosed, p.name)
	}
	if !p.ops[op] {
		return nil, fmt.Errorf("%w: provider %q does not implement %s", abi.ErrUnsupported, p.name, op)
	}
	if len(p.space) == 0 {
		return nil, errors.New("provider not initialized")
	}
	input, ok := in.(encodedInput)
	if !ok {
		var err error
		if input, err = json.Marshal(in); err != nil {
			return nil, fmt.Errorf("%w: encode input: %w", abi.ErrBadInput, err)
		}
	}
	if len(input) > maxInput {
		return nil, fmt.Errorf("%w: input is %d bytes, limit %d", abi.ErrBadInput, len(input), maxInput)
	}
	return input, nil
}

// maxInput bounds the input JSON of one call.
const maxInput = 64 << 10

// encodedInput is a call's input already encoded as JSON.
type encodedInput []byte

// readInput is abi.ReadRequest{URI: uri} as JSON, written directly: a
// read's input is one string, and encoding/json's reflection and
// compaction cost a microsecond per read for it. Every byte json.Marshal
// would escape for the guest's parser is escaped ('"', '\\' and control
// characters); the rest, valid UTF-8 as Read checked, is copied.
func readInput(uri string) encodedInput {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(uri)+10)
	b = append(b, `{"uri":"`...)
	for i := 0; i < len(uri); i++ {
		switch c := uri[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, `"}`...)
}
