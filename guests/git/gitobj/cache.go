package gitobj

// baseCache keeps recently read packed objects, so that a delta chain's
// bases are inflated once for a walk that reads many objects (git keeps
// such a cache too). It is bounded in bytes and emptied when full.
type baseCache struct {
	max, used int
	m         map[cacheKey]*Object
}

type cacheKey struct {
	p   *pack
	off int64
}

func newBaseCache(max int) *baseCache { return &baseCache{max: max, m: map[cacheKey]*Object{}} }

func (c *baseCache) get(p *pack, off int64) *Object { return c.m[cacheKey{p, off}] }

func (c *baseCache) put(p *pack, off int64, o *Object) {
	if len(o.Data) > c.max/4 {
		return
	}
	if c.used+len(o.Data) > c.max {
		clear(c.m)
		c.used = 0
	}
	c.m[cacheKey{p, off}] = o
	c.used += len(o.Data)
}
