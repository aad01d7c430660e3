// Package slots is the runtime's global bound on guest calls and
// instantiations in flight, shared fairly between providers. The root
// holds one Slots and gives each provider a Share.
package slots

import (
	"context"
	"sync"
)

// Slots is the global bound on guest calls and instantiations in flight,
// shared fairly between providers.
//
// A plain semaphore lets one provider hold every slot: four calls that each
// run to their deadline starve every other provider for as long as they keep
// coming, and a slow but well-behaved provider is never quarantined. So:
//
//   - A provider's first slot needs one free slot. Any further slot needs
//     two: one slot always stays free for a provider that holds none, so a
//     provider that is not busy gets a slot at once, whatever the others do.
//   - When slots free up, waiting providers are served fewest-held first
//     (FIFO among equals), so a provider cannot win slots by queueing more
//     calls than the others.
//
// Each provider already queues on its own pool before it asks here (see
// the root's pool.acquire), so one provider has at most its pool size of waiters. With
// several busy providers the bound is shared max-min fairly; with one busy
// provider it uses all slots but one.
type Slots struct {
	mu      sync.Mutex
	free    int
	waiters []*slotWaiter
}

// Share is one provider's account with the slots; its zero value holds none.
type Share struct {
	held int // guarded by Slots.mu
}

type slotWaiter struct {
	sh      *Share
	granted chan struct{}
}

// New makes n slots.
func New(n int) *Slots { return &Slots{free: n} }

// canTake reports whether sh may take a slot now; s.mu is held.
func (s *Slots) canTake(sh *Share) bool {
	if sh.held == 0 {
		return s.free >= 1
	}
	return s.free >= 2
}

// Acquire takes a slot for sh, waiting until ctx is done. A new call
// queues behind waiters that go first by the rules above; dispatch decides.
func (s *Slots) Acquire(ctx context.Context, sh *Share) error {
	s.mu.Lock()
	if s.canTake(sh) {
		// dispatch leaves no waiter that could take a slot, so a call the
		// rules allow one goes before nobody: it takes it at once, without
		// a waiter, a channel or a look at ctx (whose Done channel, made
		// lazily, costs an allocation of its own).
		s.take(sh)
		s.mu.Unlock()
		return nil
	}
	w := &slotWaiter{sh: sh, granted: make(chan struct{})}
	s.waiters = append(s.waiters, w)
	s.dispatch()
	s.mu.Unlock()
	select {
	case <-w.granted:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		defer s.mu.Unlock()
		select {
		case <-w.granted: // granted meanwhile: give it back
			s.releaseLocked(sh)
		default:
			s.remove(w)
		}
		return ctx.Err()
	}
}

// Release returns a slot of sh.
func (s *Slots) Release(sh *Share) {
	s.mu.Lock()
	s.releaseLocked(sh)
	s.mu.Unlock()
}

func (s *Slots) releaseLocked(sh *Share) {
	sh.held--
	s.free++
	s.dispatch()
}

// take gives sh a slot; s.mu is held and canTake(sh).
func (s *Slots) take(sh *Share) {
	sh.held++
	s.free--
}

// dispatch grants free slots to waiters, fewest-held first, FIFO among
// equals, until none of them can take one; s.mu is held.
func (s *Slots) dispatch() {
	for s.free > 0 && len(s.waiters) > 0 {
		best := -1
		for i, w := range s.waiters {
			if s.canTake(w.sh) && (best < 0 || w.sh.held < s.waiters[best].sh.held) {
				best = i
			}
		}
		if best < 0 {
			return
		}
		w := s.waiters[best]
		s.remove(w)
		s.take(w.sh)
		close(w.granted)
	}
}

func (s *Slots) remove(w *slotWaiter) {
	for i, x := range s.waiters {
		if x == w {
			s.waiters = append(s.waiters[:i], s.waiters[i+1:]...)
			return
		}
	}
}

// InUse is the number of slots held, for tests and stats.
func (s *Slots) InUse(total int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return total - s.free
}

// Waiters is the number of calls waiting for a slot, for tests.
func (s *Slots) Waiters() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.waiters)
}
