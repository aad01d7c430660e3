// Package readcache keeps guest reads whose cache hint allows it, within
// a byte budget shared by all providers, and serves one again only while
// every file it looked up (rootfs.Stamp) is as it was. It never decides
// what may be cached: the caller passes the expiry (Cacheable) and the
// lookups.
package readcache

import (
	"container/list"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/rootfs"
	"maps"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/heapsize"
)

// The read cache. A read whose cache hint allows it (a public scope and a
// positive ttl, from the result, else the provider's default) is kept,
// keyed by provider and URI, for at most its ttl, within a byte budget
// shared by all providers (least recently used out first).
//
// A cached read is served only while nothing it depended on changed. While
// a read runs, the host records every name the guest looked up or opened
// under its granted directories, with what it found (absent, or inode,
// size, modification and change times); a hit stats each one again, with
// one fstatat, and is a miss if any differs. The change feed's reports and
// the host's directory watch drop entries as well, which also catches a
// rewrite that keeps size and times within the clock's resolution. So a
// cached read is never older than its hint, and never older than the
// files it came from.

// underHostPath reports whether host is one of paths or below one.
func underHostPath(host string, paths []string) bool {
	for _, p := range paths {
		if host == p || strings.HasPrefix(host, p+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

type cacheKey struct {
	p   any // the provider, by identity
	uri string
}

type cacheEntry struct {
	key     cacheKey
	res     *abi.ReadResult
	size    int64
	expires time.Time
	files   []rootfs.Stamp
}

// Cache is shared by the providers of a Runtime.
type Cache struct {
	max int64

	mu      sync.Mutex
	bytes   int64
	entries map[cacheKey]*list.Element
	lru     *list.List // of *cacheEntry, most recent first
	// peak is the most entries the map has held since it was made: a Go
	// map never shrinks, so one that once held many tiny entries keeps
	// their slots; removeLocked makes a new one once it holds far fewer.
	peak int
}

// New returns a cache of max bytes, or nil (no cache, every method a
// no-op) when max is not positive.
func New(max int64) *Cache {
	if max <= 0 {
		return nil
	}
	return &Cache{max: max, entries: map[cacheKey]*list.Element{}, lru: list.New()}
}

// Get returns a copy of the cached read of uri, if it is fresh.
func (c *Cache) Get(p any, uri string, now time.Time) (*abi.ReadResult, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	el, ok := c.entries[cacheKey{p, uri}]
	if !ok {
		c.mu.Unlock()
		return nil, false
	}
	e := el.Value.(*cacheEntry)
	if now.After(e.expires) {
		c.removeLocked(el)
		c.mu.Unlock()
		return nil, false
	}
	c.lru.MoveToFront(el)
	files := e.files
	c.mu.Unlock()
	for i := range files { // outside the lock: each is a system call
		if !files[i].Current() {
			c.drop(p, uri)
			return nil, false
		}
	}
	return copyRead(e.res), true
}

// Put keeps res for uri until expires, with the lookups it depended on.
func (c *Cache) Put(p any, uri string, res *abi.ReadResult, expires time.Time, files []rootfs.Stamp) {
	if c == nil {
		return
	}
	e := &cacheEntry{key: cacheKey{p, uri}, res: copyRead(res), expires: expires, files: append([]rootfs.Stamp(nil), files...)}
	e.size = entrySize(e)
	if e.size > c.max/8 { // one read may not push out most of the others
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[e.key]; ok {
		c.removeLocked(old)
	}
	c.entries[e.key] = c.lru.PushFront(e)
	c.peak = max(c.peak, len(c.entries))
	c.bytes += e.size
	for c.bytes > c.max {
		c.removeLocked(c.lru.Back())
	}
}

func (c *Cache) drop(p any, uri string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[cacheKey{p, uri}]; ok {
		c.removeLocked(el)
	}
}

// DropProvider drops every entry of p (it closed, or its list changed in
// a way the feed could not map to URIs).
func (c *Cache) DropProvider(p any) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, el := range c.entries {
		if k.p == p {
			c.removeLocked(el)
		}
	}
}

// DropURIs drops p's entries for uris (the change feed reported them).
func (c *Cache) DropURIs(p any, uris []string) {
	if c == nil {
		return
	}
	for _, u := range uris {
		c.drop(p, u)
	}
}

// DropHostPaths drops p's entries that depended on a host path at or below
// one of paths (the directory watch saw them change).
func (c *Cache) DropHostPaths(p any, paths []string) {
	if c == nil || len(paths) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, el := range c.entries {
		if k.p != p {
			continue
		}
		for _, f := range el.Value.(*cacheEntry).files {
			if underHostPath(f.HostPath(), paths) {
				c.removeLocked(el)
				break
			}
		}
	}
}

func (c *Cache) removeLocked(el *list.Element) {
	e := el.Value.(*cacheEntry)
	c.lru.Remove(el)
	delete(c.entries, e.key)
	c.bytes -= e.size
	if c.peak > 1024 && len(c.entries) < c.peak/4 {
		smaller := make(map[cacheKey]*list.Element, len(c.entries)) // sized for what it holds now
		maps.Copy(smaller, c.entries)
		c.entries, c.peak = smaller, len(c.entries)
	}
}

// Usage is the cache's current size in bytes.
func (c *Cache) Usage() int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// The cost of an entry, counted as the heap holds it: every allocation
// it made, rounded up to the allocator's size class (internal/heapsize), and its
// share of the map and the list. Strings an entry shares with others (a
// directory's host path) are counted by none; a string that two of its
// fields may share (a content's URI and the key) is counted twice. With
// this, what the cache holds stays within its budget, which the old count
// (64 bytes a lookup, nothing for the key, the entry, the map or the list)
// did not: each lookup holds a name of up to 4 KiB (TestReadCache_
// accountsWhatItHolds measures it).
var (
	entryBytes = heapsize.Alloc(unsafe.Sizeof(cacheEntry{})) + heapsize.Alloc(unsafe.Sizeof(list.Element{})) +
		heapsize.Alloc(unsafe.Sizeof(abi.ReadResult{})) + mapSlotBytes
	stampBytes   = int64(unsafe.Sizeof(rootfs.Stamp{}))
	contentBytes = int64(unsafe.Sizeof(abi.Content{}))
)

// mapSlotBytes is an entry's share of the map. A swiss table's slot (key,
// value and control byte: 33 bytes) takes 75 bytes an entry at the lowest
// load a table has after growing (7/16), and a cache's churn (one entry in,
// one out) leaves tombstones that grow the table again without more
// entries: measured, up to 164 bytes an entry (1,000 entries, 12,000
// puts). Five slots an entry, and room for the tables' headers.
const mapSlotBytes = (int64(unsafe.Sizeof(cacheKey{})+unsafe.Sizeof((*list.Element)(nil)))+1)*5 + 32

// entrySize is what e holds, in bytes (see entryBytes).
func entrySize(e *cacheEntry) int64 {
	n := entryBytes + heapsize.Alloc(uintptr(len(e.key.uri)))
	r := e.res
	if r.Cache != nil {
		n += heapsize.Alloc(unsafe.Sizeof(*r.Cache)) + heapsize.Alloc(uintptr(len(r.Cache.Scope)))
	}
	n += heapsize.Alloc(uintptr(int64(cap(r.Contents)) * contentBytes))
	for _, c := range r.Contents {
		n += heapsize.Alloc(uintptr(len(c.URI))) + heapsize.Alloc(uintptr(len(c.MIMEType))) + heapsize.Alloc(uintptr(cap(c.Data)))
		for _, t := range []*string{c.Text, c.Blob} {
			if t != nil {
				n += heapsize.Alloc(unsafe.Sizeof(*t)) + heapsize.Alloc(uintptr(len(*t)))
			}
		}
		if a := c.Annotations; a != nil {
			n += heapsize.Alloc(unsafe.Sizeof(*a)) + heapsize.Alloc(uintptr(len(a.LastModified))) + heapsize.Alloc(uintptr(cap(a.Audience))*unsafe.Sizeof(""))
			for _, s := range a.Audience {
				n += heapsize.Alloc(uintptr(len(s)))
			}
			if a.Priority != nil {
				n += heapsize.Alloc(unsafe.Sizeof(*a.Priority))
			}
		}
	}
	n += heapsize.Alloc(uintptr(int64(cap(e.files)) * stampBytes))
	for i := range e.files {
		n += heapsize.Alloc(uintptr(len(e.files[i].Name())) + 1) // cut from "/"+name (rootFS.name)
	}
	return n
}

// copyRead copies what a caller may change of a read (the contents slice:
// the served layer rewrites URIs); strings are immutable.
func copyRead(r *abi.ReadResult) *abi.ReadResult {
	out := *r
	out.Contents = append([]abi.Content(nil), r.Contents...)
	return &out
}

// Cacheable returns until when a read with hint h may be kept, or false.
func Cacheable(h *abi.CacheHint, now time.Time) (time.Time, bool) {
	if h == nil || h.TTLMs <= 0 || h.Scope != abi.ScopePublic {
		return time.Time{}, false
	}
	return now.Add(time.Duration(h.TTLMs) * time.Millisecond), true
}
