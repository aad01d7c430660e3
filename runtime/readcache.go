package runtime

import (
	"container/list"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
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

// DefaultReadCache is the read cache's default budget.
const DefaultReadCache = 64 << 20

// maxTracked bounds the lookups recorded for one read; a read that makes
// more is not cached.
const maxTracked = 256

// fileStamp is what one lookup under a granted directory found.
type fileStamp struct {
	dir        grantDir
	host       string // the host path, for the directory watch
	name       string // the name in dir
	follow     bool   // looked up following a final symlink (stat, open)
	exists     bool
	ino        uint64
	size       int64
	mtim, ctim int64
}

// fileTrack records the lookups of one instance's current call.
type fileTrack struct {
	stamps   []fileStamp
	overflow bool
}

func (t *fileTrack) reset() { t.stamps, t.overflow = t.stamps[:0], false }

func (t *fileTrack) add(s fileStamp) {
	if t == nil {
		return
	}
	if len(t.stamps) >= maxTracked {
		t.overflow = true
		return
	}
	t.stamps = append(t.stamps, s)
}

// current reports whether a lookup of s now finds the same thing.
func (s *fileStamp) current() bool {
	fi, err := s.dir.lookup(s.name, s.follow) // as the guest's lookup resolved it
	if err != nil {
		return !s.exists && os.IsNotExist(err)
	}
	var now fileStamp
	now.setInfo(fi)
	return s.exists && now.ino == s.ino && now.size == s.size && now.mtim == s.mtim && now.ctim == s.ctim
}

// setInfo fills the stamp from what a lookup found.
func (s *fileStamp) setInfo(fi fs.FileInfo) {
	s.exists, s.size, s.mtim = true, fi.Size(), fi.ModTime().UnixNano()
	s.ino, s.ctim = inodeAndCtime(fi)
}

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
	p   *Provider
	uri string
}

type cacheEntry struct {
	key     cacheKey
	res     *abi.ReadResult
	size    int64
	expires time.Time
	files   []fileStamp
}

// readCache is shared by the providers of a Runtime.
type readCache struct {
	max int64

	mu      sync.Mutex
	bytes   int64
	entries map[cacheKey]*list.Element
	lru     *list.List // of *cacheEntry, most recent first
}

func newReadCache(max int64) *readCache {
	if max <= 0 {
		return nil
	}
	return &readCache{max: max, entries: map[cacheKey]*list.Element{}, lru: list.New()}
}

// get returns a copy of the cached read of uri, if it is fresh.
func (c *readCache) get(p *Provider, uri string, now time.Time) (*abi.ReadResult, bool) {
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
		if !files[i].current() {
			c.drop(p, uri)
			return nil, false
		}
	}
	return copyRead(e.res), true
}

// put keeps res for uri until expires, with the lookups it depended on.
func (c *readCache) put(p *Provider, uri string, res *abi.ReadResult, expires time.Time, files []fileStamp) {
	if c == nil {
		return
	}
	size := readSize(res) + int64(len(uri)) + int64(len(files))*64
	if size > c.max/8 { // one read may not push out most of the others
		return
	}
	e := &cacheEntry{key: cacheKey{p, uri}, res: copyRead(res), size: size, expires: expires, files: append([]fileStamp(nil), files...)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[e.key]; ok {
		c.removeLocked(old)
	}
	c.entries[e.key] = c.lru.PushFront(e)
	c.bytes += size
	for c.bytes > c.max {
		c.removeLocked(c.lru.Back())
	}
}

func (c *readCache) drop(p *Provider, uri string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[cacheKey{p, uri}]; ok {
		c.removeLocked(el)
	}
}

// dropProvider drops every entry of p (it closed, or its list changed in
// a way the feed could not map to URIs).
func (c *readCache) dropProvider(p *Provider) {
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

// dropURIs drops p's entries for uris (the change feed reported them).
func (c *readCache) dropURIs(p *Provider, uris []string) {
	if c == nil {
		return
	}
	for _, u := range uris {
		c.drop(p, u)
	}
}

// dropHostPaths drops p's entries that depended on a host path at or below
// one of paths (the directory watch saw them change).
func (c *readCache) dropHostPaths(p *Provider, paths []string) {
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
			if underHostPath(f.host, paths) {
				c.removeLocked(el)
				break
			}
		}
	}
}

func (c *readCache) removeLocked(el *list.Element) {
	e := el.Value.(*cacheEntry)
	c.lru.Remove(el)
	delete(c.entries, e.key)
	c.bytes -= e.size
}

// usage is the cache's current size in bytes.
func (c *readCache) usage() int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

func readSize(r *abi.ReadResult) int64 {
	var n int64
	for _, c := range r.Contents {
		n += int64(len(c.URI)+len(c.MIMEType)) + 64
		if c.Text != nil {
			n += int64(len(*c.Text))
		}
		if c.Blob != nil {
			n += int64(len(*c.Blob))
		}
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

// cacheable returns until when a read with hint h may be kept, or false.
func cacheable(h *abi.CacheHint, now time.Time) (time.Time, bool) {
	if h == nil || h.TTLMs <= 0 || h.Scope != abi.ScopePublic {
		return time.Time{}, false
	}
	return now.Add(time.Duration(h.TTLMs) * time.Millisecond), true
}
