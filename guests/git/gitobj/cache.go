package gitobj

// Objects are immutable (named by their hash), so what is read once can
// be served again for the life of the Repo: a guest instance lives across
// many calls, and in wasm inflating is the dominant cost (each jump of the
// decoder costs the runtime's termination check). Both caches are bounded
// and emptied when full, the simplest policy that cannot grow.

// Cache bounds.
const (
	objectCacheBytes = 8 << 20
	treeCacheEntries = 100_000
)

// objCache keeps read objects by pack offset (delta bases) or by id.
type objCache struct {
	max, used int
	m         map[cacheKey]*Object
}

// cacheKey is (pack, offset) for a packed object's delta base, or the id.
type cacheKey struct {
	p   *pack
	off int64
	id  ID
}

func newObjCache(max int) *objCache { return &objCache{max: max, m: map[cacheKey]*Object{}} }

func (c *objCache) get(k cacheKey) *Object { return c.m[k] }

func (c *objCache) put(k cacheKey, o *Object) {
	if len(o.Data) > c.max/4 {
		return
	}
	if c.used+len(o.Data) > c.max {
		clear(c.m)
		c.used = 0
	}
	c.m[k] = o
	c.used += len(o.Data)
}

// treeCache keeps parsed trees by id, at most treeCacheEntries entries in
// all.
type treeCache struct {
	used int
	m    map[ID][]TreeEntry
}

func (c *treeCache) get(id ID) ([]TreeEntry, bool) {
	e, ok := c.m[id]
	return e, ok
}

func (c *treeCache) put(id ID, ents []TreeEntry) {
	if c.m == nil || c.used+len(ents) > treeCacheEntries {
		c.m, c.used = map[ID][]TreeEntry{}, 0
	}
	if len(ents) <= treeCacheEntries/4 {
		c.m[id] = ents
		c.used += len(ents)
	}
}
