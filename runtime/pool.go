package runtime

import (
	"context"
	"fmt"
	"sync"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// pool holds up to size instances of one provider. A token from slots is
// needed to use or create an instance, so at most size exist at once; idle
// instances wait in idle. Instances are created lazily, and an instance that
// faulted is closed instead of returned, so the next acquire makes a fresh one.
type pool struct {
	slots  chan struct{}
	idle   chan *instance
	create func(ctx context.Context) (*instance, error)

	mu     sync.Mutex
	live   int
	closed bool
}

func newPool(size int, create func(ctx context.Context) (*instance, error)) *pool {
	p := &pool{slots: make(chan struct{}, size), idle: make(chan *instance, size), create: create}
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
	select {
	case in := <-p.idle:
		return in, nil
	default:
	}
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		<-p.slots
		return nil, abi.ErrClosed
	}
	in, err := p.create(ctx)
	if err != nil {
		<-p.slots
		return nil, err
	}
	p.mu.Lock()
	p.live++
	p.mu.Unlock()
	return in, nil
}

// release returns a healthy instance to the pool, or closes it when keep is
// false or the pool is closed.
func (p *pool) release(ctx context.Context, in *instance, keep bool) {
	p.mu.Lock()
	if keep && !p.closed {
		p.idle <- in // never blocks: at most size instances exist
		p.mu.Unlock()
		<-p.slots
		return
	}
	p.live--
	p.mu.Unlock()
	in.close(ctx)
	<-p.slots
}

// put adds an instance created outside acquire (the load-time instance).
func (p *pool) put(in *instance) {
	p.mu.Lock()
	p.live++
	p.mu.Unlock()
	p.idle <- in
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
	p.mu.Unlock()
	for {
		select {
		case in := <-p.idle:
			p.mu.Lock()
			p.live--
			p.mu.Unlock()
			in.close(ctx)
		default:
			return
		}
	}
}
