package dirwatch

import (
	"slices"
	"sync"
)

// pending is the bounded set of changed paths between two takes.
type pending struct {
	max    int
	signal chan struct{} // capacity 1: "something is pending"

	mu       sync.Mutex
	paths    map[string]bool
	overflow bool
}

func newPending(max int) *pending {
	return &pending{max: max, signal: make(chan struct{}, 1), paths: map[string]bool{}}
}

// add records a changed path; past the bound it records an overflow and
// drops the paths.
func (p *pending) add(path string) {
	p.mu.Lock()
	switch {
	case p.overflow, p.paths[path]:
	case len(p.paths) >= p.max:
		p.overflow, p.paths = true, map[string]bool{}
	default:
		p.paths[path] = true
	}
	p.mu.Unlock()
	p.notify()
}

// overflowed records that changes were lost (the kernel queue overflowed).
func (p *pending) overflowed() {
	p.mu.Lock()
	p.overflow, p.paths = true, map[string]bool{}
	p.mu.Unlock()
	p.notify()
}

func (p *pending) notify() {
	select {
	case p.signal <- struct{}{}:
	default:
	}
}

func (p *pending) take() ([]string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for path := range p.paths {
		out = append(out, path)
	}
	slices.Sort(out)
	overflow := p.overflow
	p.paths, p.overflow = map[string]bool{}, false
	return out, overflow
}
