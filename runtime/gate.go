package runtime

import "sync"

// gate counts calls in flight so Close can wait for them before it closes
// the wazero runtime under them. No lock is held during a call.
type gate struct {
	mu     sync.Mutex
	n      int
	closed bool
	idle   chan struct{}
}

// enter admits a call, or reports false once the gate is closed.
func (g *gate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.n++
	return true
}

func (g *gate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	if g.n == 0 && g.idle != nil {
		close(g.idle)
		g.idle = nil
	}
}

// close refuses new calls and returns a channel closed when none is in flight.
func (g *gate) close() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	ch := make(chan struct{})
	if g.n == 0 {
		close(ch)
	} else {
		g.idle = ch
	}
	return ch
}
