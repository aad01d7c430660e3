package runtime

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// pool holds up to size instances of one provider. A token from slots is
// needed to use or create an instance, so at most size exist at once; idle
// instances wait in idle, the most recently used on top, so that a light
// load keeps using one instance and the others age out (poolidle.go).
// Instances are created lazily, only when none came back within what making
// one costs (poolidle.go), and an instance that faulted is closed instead of
// returned, so the next acquire makes a fresh one.
type pool struct {
	slots  chan struct{}
	wake   chan struct{} // a token per release, for acquires waiting to reuse
	create func(ctx context.Context) (*instance, error)
	now    func() time.Time // the idle clock; tests replace it

	mu     sync.Mutex
	idle   []idleInstance // a stack: the top is the most recently released
	live   int
	closed bool
	made   time.Duration // how long making an instance took, smoothed
}

func newPool(size int, create func(ctx context.Context) (*instance, error)) *pool {
	p := &pool{slots: make(chan struct{}, size), wake: make(chan struct{}, size), create: create, now: time.Now}
	return p
}

// acquire returns an instance for exclusive use, waiting for a slot until ctx
// is done. Once it holds a slot it calls admit (the global concurrency bound),
// so callers queue per provider before they take a global slot, and a busy
// provider cannot starve the others.
func (p *pool) acquire(ctx context.Context, admit func(context.Context) error) (*instance, error) {
	select {
	case p.slots <- struct{}{}: // a free slot: ctx is not consulted
	default:
		select {
		case p.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: waiting for a free instance: %w", abi.ErrTimeout, ctx.Err())
		}
	}
	if err := admit(ctx); err != nil {
		<-p.slots
		return nil, err
	}
	in, err := p.reuseOrCreate(ctx)
	if err != nil {
		<-p.slots
		return nil, err
	}
	return in, nil
}

// release returns a healthy instance to the pool, or closes it when keep is
// false or the pool is closed.
func (p *pool) release(ctx context.Context, in *instance, keep bool) {
	p.mu.Lock()
	if keep && !p.closed {
		p.push(in)
		p.mu.Unlock()
		<-p.slots
		return
	}
	p.live--
	p.signal() // a waiter may find live == 0 and make one
	p.mu.Unlock()
	in.close(ctx)
	<-p.slots
}

// put adds an instance created outside acquire (the load-time instance),
// which took took to make: how long a caller waits for a busy instance
// before making another (poolidle.go).
func (p *pool) put(in *instance, took time.Duration) {
	p.mu.Lock()
	p.live++
	p.made = took
	p.push(in)
	p.mu.Unlock()
}

// liveCount is the number of instances that exist now.
func (p *pool) liveCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.live
}

// close closes idle instances now; busy ones are closed when released.
func (p *pool) close(ctx context.Context) {
	p.mu.Lock()
	p.closed = true
	idle := p.idle
	p.idle = nil
	p.live -= len(idle)
	p.mu.Unlock()
	for _, e := range idle {
		e.in.close(ctx)
	}
}
