package server

import (
	"container/list"
	"context"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/heapsize"
)

// The list cache. A provider's list and templates pages are kept on the
// host, keyed by provider, operation and provider cursor, and served again
// instead of calling the provider, so that listing an unchanged tree does
// not redo its walk and every stat in the guest.
//
// What is kept is the provider's page as it answered, before anything is
// left out for a client (uri space, the operator's expose filter, any
// per-client rule): what each client sees is worked out from the cached
// page on every request, so one client's view never comes from another's.
//
// A page is kept only when its cache hint (the page's, else the provider's
// describe hint) is public with a positive ttl: a ttl of 0, a private
// scope or no hint at all means never. How long it is served depends on
// whether the provider's changes are tracked (ChangesTracked: a change
// feed runs for it, and watches its granted directories):
//
//   - tracked: until a change signal for it: a changes answer (updated
//     resources or a list change), any list change (ResourceListChanged)
//     or a reload (SetProviders). Each signal bumps a generation; a page
//     fetched under an older generation is never kept or served. While the
//     cache holds such pages, Interested reports true, so that the feed
//     keeps asking the provider (at most one feed round behind the disk).
//   - not tracked: for at most the hint's ttl, as a client may reuse it.
//
// The cache holds at most its byte budget (WithListCache), least recently
// used out first; a page larger than an eighth of it is not kept.

// DefaultListCache is the list cache's default budget: about 90,000
// files of the default provider (some 350 bytes a resource, counted as
// listResultSize counts).
const DefaultListCache = 32 << 20

// MaxListCache is the largest budget WithListCache accepts.
const MaxListCache = 1 << 40

// WithListCache sets the byte budget of the host's list cache, shared by
// all providers (0: off). Defaults to DefaultListCache.
func (c Config) WithListCache(bytes int64) Config {
	c.listCache = bytes
	return c
}

func (c Config) validateListCache() error {
	if c.listCache < 0 || c.listCache > MaxListCache {
		return fmt.Errorf("list cache %d bytes out of range: use 0 (off) to %d, such as %d", c.listCache, int64(MaxListCache), DefaultListCache)
	}
	return nil
}

// ChangesTracked tells the server that a change feed reports the changes
// of the provider called name from now on (on: its baseline is taken) or
// no longer (off: it stopped). Calls nest: a provider is tracked while its
// ons outnumber its offs, so that a reload's new feed and the old one's
// end may arrive in either order. Only tracked providers' list pages are
// served from the cache past their ttl. Safe for concurrent use.
func (s *Server) ChangesTracked(name string, on bool) { s.lists.track(name, on) }

// ProviderChanged tells the server that something the provider called
// name serves from may have changed (the host's directory watch saw its
// granted files change): its cached list pages are dropped. Safe for
// concurrent use.
func (s *Server) ProviderChanged(name string) { s.lists.changed(name) }

// ListCacheBytes is what the list cache holds now, in bytes.
func (s *Server) ListCacheBytes() int64 { return s.lists.usage() }

type listKey struct {
	m      *backend // a reload makes new backends: old keys are never asked again
	op     string
	cursor string
}

type listEntry struct {
	key     listKey
	gen     uint64
	res     any // *abi.ListResult or *abi.TemplatesResult; never changed once kept
	size    int64
	expires time.Time // zero: until a change signal (tracked)
}

// listCache is shared by the providers of a Server; nil is off.
type listCache struct {
	max int64

	mu      sync.Mutex
	bytes   int64
	entries map[listKey]*list.Element
	lru     *list.List // of *listEntry, most recent first
	// epoch is bumped by a change to any provider, gens by one provider's:
	// both only grow, so their sum is a provider's generation.
	epoch    uint64
	gens     map[string]uint64
	tracked  map[string]int // ChangesTracked ons minus offs
	untilSig int            // entries kept until a change signal
	fetching int            // provider calls under way whose page may be kept
}

func newListCache(max int64) *listCache {
	if max <= 0 {
		return nil
	}
	return &listCache{max: max, entries: map[listKey]*list.Element{}, lru: list.New(),
		gens: map[string]uint64{}, tracked: map[string]int{}}
}

// cachedPage returns the page of m at cursor for op: from the cache while
// it is fresh, else from call, keeping what call returns if its hint (of
// the page, given by hint, else the provider's) allows. hint also says
// whether the page is within the abi's bounds at all: one that is not is
// refused by the caller and never kept.
func cachedPage[R any](ctx context.Context, c *listCache, m *backend, op, cursor string,
	call func(context.Context, string) (R, error), hint func(R) (*abi.CacheHint, bool), size func(R) int64,
) (R, error) {
	if c == nil {
		return call(ctx, cursor)
	}
	// The key is the provider set's backend, never a view's copy: every
	// client's view of the provider shares its pages (aclview.go).
	key := listKey{m: m.shared(), op: op, cursor: cursor}
	if res, ok := c.get(key, time.Now()); ok {
		return res.(R), nil
	}
	gen, tracked := c.begin(m.name)
	defer c.end()
	res, err := call(ctx, cursor)
	if err != nil {
		return res, err
	}
	h, ok := hint(res)
	if h == nil {
		h = m.cache
	}
	if ok && h != nil && h.TTLMs > 0 && h.Scope == abi.ScopePublic {
		c.put(key, gen, tracked, res, size(res), time.Duration(min(h.TTLMs, maxTTLMs))*time.Millisecond)
	}
	return res, nil
}

// generation is name's generation; c.mu is held.
func (c *listCache) generation(name string) uint64 { return c.epoch + c.gens[name] }

// get returns the kept page of key if it is of the provider's current
// generation and, when kept for a ttl, not expired.
func (c *listCache) get(key listKey, now time.Time) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*listEntry)
	if e.gen != c.generation(key.m.name) || !e.expires.IsZero() && now.After(e.expires) {
		c.removeLocked(el)
		return nil, false
	}
	c.lru.MoveToFront(el)
	return e.res, true
}

// begin starts a provider call whose page may be kept and returns the
// provider's generation before it, and whether a feed tracked its changes
// then (a page fetched before the feed's baseline is kept for its ttl only).
func (c *listCache) begin(name string) (uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fetching++
	return c.generation(name), c.tracked[name] > 0
}

func (c *listCache) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fetching--
}

// put keeps res, fetched under generation gen, until a change signal if
// the provider was tracked when the fetch began, else for ttl. A page whose
// provider changed while it was fetched (or stopped being tracked) is not
// kept.
func (c *listCache) put(key listKey, gen uint64, tracked bool, res any, size int64, ttl time.Duration) {
	if size > c.max/8 { // one page may not push out most of the others
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.generation(key.m.name) {
		return
	}
	e := &listEntry{key: key, gen: gen, res: res, size: size}
	if !tracked {
		e.expires = time.Now().Add(ttl)
	}
	if old, ok := c.entries[key]; ok {
		c.removeLocked(old)
	}
	c.entries[key] = c.lru.PushFront(e)
	c.bytes += e.size
	if e.expires.IsZero() {
		c.untilSig++
	}
	for c.bytes > c.max {
		c.removeLocked(c.lru.Back())
	}
}

func (c *listCache) removeLocked(el *list.Element) {
	e := el.Value.(*listEntry)
	c.lru.Remove(el)
	delete(c.entries, e.key)
	c.bytes -= e.size
	if e.expires.IsZero() {
		c.untilSig--
	}
}

// changed is a change signal for the provider called name: its pages are
// dropped and a page being fetched is not kept.
func (c *listCache) changed(name string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gens[name]++
	for k, el := range c.entries {
		if k.m.name == name {
			c.removeLocked(el)
		}
	}
}

// changedAll is a change signal for every provider (a list change, which
// does not say whose, or a reload).
func (c *listCache) changedAll() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	clear(c.entries)
	c.lru.Init()
	c.bytes, c.untilSig = 0, 0
}

func (c *listCache) track(name string, on bool) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if on {
		c.tracked[name]++
		return
	}
	if c.tracked[name]--; c.tracked[name] <= 0 {
		delete(c.tracked, name)
		c.gens[name]++ // what was kept until a signal no longer hears one
		for k, el := range c.entries {
			if k.m.name == name {
				c.removeLocked(el)
			}
		}
	}
}

// active reports whether the cache depends on change signals now: it
// holds pages kept until one, or a call that may keep one is under way.
func (c *listCache) active() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.untilSig > 0 || c.fetching > 0 && len(c.tracked) > 0
}

func (c *listCache) usage() int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// The cost of an entry, counted as the heap holds it (runtime/readcache.go
// counts reads the same way): the entry, its list element and its share of
// the map, the result and its item slice, and every string and pointer of
// every item. Strings are counted whole even where go-sdk's decoder or the
// guest's answer shares them.
var (
	listEntryBytes = int64(unsafe.Sizeof(listEntry{})+unsafe.Sizeof(list.Element{})) +
		5*int64(unsafe.Sizeof(listKey{})+unsafe.Sizeof((*list.Element)(nil))+1) + 64
	// itemSlack is added to every item: what the heap held of a cached
	// listing of the default provider was 2 % above the sum of its parts
	// (TestListCache_accountsWhatItHolds).
	itemSlack      = int64(16)
	resourceBytes  = int64(unsafe.Sizeof(abi.Resource{})) + itemSlack
	templateBytes  = int64(unsafe.Sizeof(abi.ResourceTemplate{})) + itemSlack
	annotationSize = int64(unsafe.Sizeof(abi.Annotations{}))
	iconBytes      = int64(unsafe.Sizeof(abi.Icon{}))
)

func listResultSize(key listKey, r *abi.ListResult) int64 {
	n := listEntryBytes + heapsize.String(key.cursor) + int64(unsafe.Sizeof(*r)) + heapsize.String(r.NextCursor) + hintBytes(r.Cache)
	n += int64(cap(r.Resources)) * resourceBytes
	for i := range r.Resources {
		it := &r.Resources[i]
		n += heapsize.String(it.URI) + heapsize.String(it.Name) + heapsize.String(it.Title) + heapsize.String(it.Description) + heapsize.String(it.MIMEType)
		if it.Size != nil {
			n += 8
		}
		n += annotationBytes(it.Annotations) + iconsBytes(it.Icons)
	}
	return n
}

func templatesResultSize(key listKey, r *abi.TemplatesResult) int64 {
	n := listEntryBytes + heapsize.String(key.cursor) + int64(unsafe.Sizeof(*r)) + heapsize.String(r.NextCursor) + hintBytes(r.Cache)
	n += int64(cap(r.ResourceTemplates)) * templateBytes
	for i := range r.ResourceTemplates {
		it := &r.ResourceTemplates[i]
		n += heapsize.String(it.URITemplate) + heapsize.String(it.Name) + heapsize.String(it.Title) + heapsize.String(it.Description) + heapsize.String(it.MIMEType)
		n += annotationBytes(it.Annotations) + iconsBytes(it.Icons)
	}
	return n
}

func hintBytes(h *abi.CacheHint) int64 {
	if h == nil {
		return 0
	}
	return int64(unsafe.Sizeof(*h)) + heapsize.String(h.Scope)
}

func annotationBytes(a *abi.Annotations) int64 {
	if a == nil {
		return 0
	}
	n := annotationSize + heapsize.String(a.LastModified) + int64(cap(a.Audience))*int64(unsafe.Sizeof(""))
	for _, s := range a.Audience {
		n += heapsize.String(s)
	}
	if a.Priority != nil {
		n += 8
	}
	return n
}

func iconsBytes(icons []abi.Icon) int64 {
	n := int64(cap(icons)) * iconBytes
	for _, ic := range icons {
		n += heapsize.String(ic.Src) + heapsize.String(ic.MIMEType) + heapsize.String(ic.Theme) + int64(cap(ic.Sizes))*int64(unsafe.Sizeof(""))
		for _, s := range ic.Sizes {
			n += heapsize.String(s)
		}
	}
	return n
}

func listHint(r *abi.ListResult) (*abi.CacheHint, bool) {
	if r == nil || len(r.Resources) > abi.MaxListItems || len(r.NextCursor) > abi.MaxCursorLength {
		return nil, false
	}
	return r.Cache, true
}

func templatesHint(r *abi.TemplatesResult) (*abi.CacheHint, bool) {
	if r == nil || len(r.ResourceTemplates) > abi.MaxListItems || len(r.NextCursor) > abi.MaxCursorLength {
		return nil, false
	}
	return r.Cache, true
}

func listSize(m *backend, cursor string) func(*abi.ListResult) int64 {
	return func(r *abi.ListResult) int64 { return listResultSize(listKey{m: m, cursor: cursor}, r) }
}

func templatesSize(m *backend, cursor string) func(*abi.TemplatesResult) int64 {
	return func(r *abi.TemplatesResult) int64 { return templatesResultSize(listKey{m: m, cursor: cursor}, r) }
}
