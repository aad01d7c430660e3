package runtime

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// An instance costs the host its linear memory (3.5 MiB for a Go guest
// after one call, 128 KiB for the C default provider), wazero's module
// instance on the Go heap (1.2 MiB for a Go guest) and its host buffers
// (BenchmarkInstanceCost). A pool that made one per concurrent caller, and
// kept them all, held its maximum for the rest of the process's life after
// one burst. So:
//
//   - it grows only under real concurrency: a caller that finds every
//     instance busy first waits for one to come back, for as long as making
//     one has taken (smoothed); a short call returns an instance sooner
//     than a new one would be ready, and then no new one is made;
//   - idle instances are a stack, the most recently used on top, so a
//     light load keeps using one instance and the rest age out;
//   - instances idle for longer than the provider's idle timeout are
//     closed (their linear memory unmapped at once), down to one kept warm;
//   - when it closed any, or the provider fell idle after a burst, the Go
//     heap's free pages go back to the OS (debug.FreeOSMemory) instead of
//     waiting for the background scavenger.

// freeOSMemory returns the Go heap's free pages to the OS; tests count it.
var freeOSMemory = debug.FreeOSMemory

// DefaultIdleTimeout is how long an instance beyond the first may stay idle.
const DefaultIdleTimeout = 30 * time.Second

// MaxIdleTimeout is the longest idle timeout accepted.
const MaxIdleTimeout = 24 * time.Hour

// WithIdleTimeout sets how long an idle instance beyond the first is kept
// before it is closed; 0 keeps them until the provider closes. Default
// DefaultIdleTimeout.
func (c ProviderConfig) WithIdleTimeout(d time.Duration) ProviderConfig {
	c.idleTimeout = d
	return c
}

// IdleTimeout returns how long an idle instance beyond the first is kept.
func (c ProviderConfig) IdleTimeout() time.Duration { return c.idleTimeout }

type idleInstance struct {
	in    *instance
	since time.Time
}

// push puts in on top of the idle stack and wakes a waiting acquire;
// p.mu is held.
func (p *pool) push(in *instance) {
	p.idle = append(p.idle, idleInstance{in: in, since: p.now()})
	p.signal()
}

// signal tells one waiting acquire that an instance came back or went.
func (p *pool) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// pop takes the most recently used idle instance, or nil; p.mu is held.
func (p *pool) pop() *instance {
	n := len(p.idle)
	if n == 0 {
		return nil
	}
	in := p.idle[n-1].in
	p.idle[n-1] = idleInstance{}
	p.idle = p.idle[:n-1]
	return in
}

// reuseOrCreate returns an idle instance, or waits up to the time making
// one takes for a busy one to come back, or makes one. The caller holds a
// slot, so at most size instances exist.
func (p *pool) reuseOrCreate(ctx context.Context) (*instance, error) {
	var timer *time.Timer
	expired := false
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, abi.ErrClosed
		}
		in := p.pop()
		live, patience := p.live, p.made
		p.mu.Unlock()
		if in != nil {
			return in, nil
		}
		if expired || live == 0 || patience <= 0 {
			break
		}
		if timer == nil {
			timer = time.NewTimer(patience)
			defer timer.Stop()
		}
		select {
		case <-p.wake:
		case <-timer.C:
			expired = true // one more look, then make one
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: waiting for a free instance: %w", abi.ErrTimeout, ctx.Err())
		}
	}
	start := time.Now()
	in, err := p.create(ctx)
	if err != nil {
		p.signal() // a waiter may find live == 0 now
		return nil, err
	}
	took := time.Since(start)
	p.mu.Lock()
	p.live++
	if p.made == 0 {
		p.made = took
	} else {
		p.made = (3*p.made + took) / 4
	}
	p.mu.Unlock()
	return in, nil
}

// shrink closes the instances idle since before cutoff, oldest first,
// while more than keep exist, and returns how many it closed.
func (p *pool) shrink(ctx context.Context, cutoff time.Time, keep int) int {
	p.mu.Lock()
	n := 0
	for n < len(p.idle) && p.live-n > keep && p.idle[n].since.Before(cutoff) {
		n++
	}
	old := make([]idleInstance, n)
	copy(old, p.idle[:n])
	p.idle = append(p.idle[:0], p.idle[n:]...)
	p.live -= n
	p.mu.Unlock()
	for _, e := range old {
		e.in.close(ctx)
	}
	return n
}

// reaper runs a provider's idle pass every half idle timeout until stopped.
type reaper struct {
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// startReaper starts the provider's idle pass; a zero idle timeout
// starts nothing.
func (p *Provider) startReaper() {
	if p.cfg.idleTimeout <= 0 {
		return
	}
	r := &reaper{stop: make(chan struct{}), done: make(chan struct{})}
	p.reaper = r
	go func() {
		defer close(r.done)
		t := time.NewTicker(max(p.cfg.idleTimeout/2, 10*time.Millisecond))
		defer t.Stop()
		seen := p.activity()
		busy := true // loading was a burst
		for {
			select {
			case <-r.stop:
				return
			case <-t.C:
			}
			now := p.activity()
			busy = p.idlePass(p.pool.now().Add(-p.cfg.idleTimeout), now != seen, busy)
			seen = now
		}
	}()
}

// activity counts the provider's calls and the reads the read cache
// answered for it: either means the server is busy with it.
func (p *Provider) activity() uint64 {
	return p.stats.calls.Load() + p.stats.cacheHits.Load()
}

// idlePass closes the instances idle since before cutoff, keeping one,
// and returns free heap pages to the OS when it closed any or the provider
// has just fallen idle (called, the pass before, but not since). It
// returns whether the provider was busy, for the next pass.
func (p *Provider) idlePass(cutoff time.Time, called, wasBusy bool) (busy bool) {
	closed := p.pool.shrink(context.Background(), cutoff, 1)
	if closed > 0 {
		p.log.Debug("idle instances closed", "closed", closed, "live", p.pool.liveCount())
	}
	if closed > 0 || (wasBusy && !called) {
		freeOSMemory()
	}
	return called
}

// stopReaper stops the idle pass and waits for it.
func (p *Provider) stopReaper() {
	if r := p.reaper; r != nil {
		r.once.Do(func() { close(r.stop) })
		<-r.done
	}
}
