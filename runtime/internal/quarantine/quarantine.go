// Package quarantine is the breaker that quarantines a provider after
// consecutive faults, with exponential backoff. The root passes down the
// operator's threshold and backoffs, and asks it before every call.
package quarantine

import (
	"sync"
	"time"
)

// Breaker quarantines a provider after consecutive faults, with exponential
// backoff. After the backoff one trial call is let through; a success closes
// the breaker, a fault doubles the backoff.
type Breaker struct {
	threshold int
	base, max time.Duration

	mu          sync.Mutex
	consecutive int
	backoff     time.Duration
	until       time.Time
	trial       bool
	total       int
}

// New makes a breaker that opens after threshold consecutive faults, for
// base, doubling up to maxBackoff.
func New(threshold int, base, maxBackoff time.Duration) *Breaker {
	return &Breaker{threshold: threshold, base: base, max: maxBackoff}
}

// Allow reports whether a call may run now and, if not, until when the
// provider is quarantined.
func (b *Breaker) Allow(now time.Time) (bool, time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.until.IsZero() {
		return true, time.Time{}
	}
	if now.Before(b.until) || b.trial {
		return false, b.until
	}
	b.trial = true
	return true, time.Time{}
}

// Record notes the outcome of a call that ran. It returns true when this
// fault put the provider into quarantine.
func (b *Breaker) Record(fault bool, now time.Time) (quarantined bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	wasTrial := b.trial
	b.trial = false
	if !fault {
		b.consecutive, b.backoff, b.until = 0, 0, time.Time{}
		return false
	}
	b.consecutive++
	if b.consecutive < b.threshold && !wasTrial {
		return false
	}
	if b.backoff == 0 {
		b.backoff = b.base
	} else {
		b.backoff = min(2*b.backoff, b.max)
	}
	b.until = now.Add(b.backoff)
	b.total++
	return true
}

// State returns whether the provider is quarantined now, until when, and
// how many times it has been quarantined.
func (b *Breaker) State(now time.Time) (bool, time.Time, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.until.IsZero() && now.Before(b.until), b.until, b.total
}

// Abandon ends a trial call that never reached the guest.
func (b *Breaker) Abandon() {
	b.mu.Lock()
	b.trial = false
	b.mu.Unlock()
}
