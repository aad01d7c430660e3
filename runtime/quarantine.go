package runtime

import (
	"sync"
	"time"
)

// breaker quarantines a provider after consecutive faults, with exponential
// backoff. After the backoff one trial call is let through; a success closes
// the breaker, a fault doubles the backoff.
type breaker struct {
	threshold int
	base, max time.Duration

	mu          sync.Mutex
	consecutive int
	backoff     time.Duration
	until       time.Time
	trial       bool
	total       int
}

func newBreaker(threshold int, base, maxBackoff time.Duration) *breaker {
	return &breaker{threshold: threshold, base: base, max: maxBackoff}
}

// allow reports whether a call may run now and, if not, until when the
// provider is quarantined.
func (b *breaker) allow(now time.Time) (bool, time.Time) {
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

// record notes the outcome of a call that ran. It returns true when this
// fault put the provider into quarantine.
func (b *breaker) record(fault bool, now time.Time) (quarantined bool) {
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

// state returns whether the provider is quarantined now, until when, and
// how many times it has been quarantined.
func (b *breaker) state(now time.Time) (bool, time.Time, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.until.IsZero() && now.Before(b.until), b.until, b.total
}

// abandon ends a trial call that never reached the guest.
func (b *breaker) abandon() {
	b.mu.Lock()
	b.trial = false
	b.mu.Unlock()
}
