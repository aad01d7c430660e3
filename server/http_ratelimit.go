package server

import (
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"
)

// maxBuckets bounds the clients tracked at once; past it, new clients share
// one overflow bucket until idle clients are swept.
const maxBuckets = 1 << 16

// limiter is a token bucket per client: a client may send burst requests
// at once and rate per second after that. A client is named by its key
// (httpHandler.clientKey): its principalKey when authenticated, else
// its IP (its /64 for IPv6, which a single host usually owns whole).
type limiter struct {
	rate, burst float64
	now         func() time.Time

	mu        sync.Mutex
	buckets   map[string]*bucket
	overflow  bucket
	lastSweep time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newLimiter(rate float64, burst int) *limiter {
	return &limiter{rate: rate, burst: float64(burst), now: time.Now, buckets: map[string]*bucket{}}
}

// allow takes a token from the bucket of the client called key. When
// there is none, it returns false and how long until there is one.
func (l *limiter) allow(key string) (bool, time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastSweep) > time.Minute || len(l.buckets) >= maxBuckets {
		l.sweep(now)
	}
	b := l.buckets[key]
	if b == nil && len(l.buckets) < maxBuckets {
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	} else if b == nil {
		b = &l.overflow
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
	return false, wait
}

// sweep forgets the clients whose bucket has refilled: they are
// indistinguishable from new ones.
func (l *limiter) sweep(now time.Time) {
	l.lastSweep = now
	for key, b := range l.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*l.rate >= l.burst {
			delete(l.buckets, key)
		}
	}
}

// rateKey is the rate-limit key of a client address: the IP, or its /64
// for IPv6.
func rateKey(ip netip.Addr) netip.Addr {
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.Addr()
	}
	return ip
}

// peerAddr is the IP of a connection's remote address (invalid if none).
func peerAddr(remoteAddr string) netip.Addr {
	ap, err := netip.ParseAddrPort(remoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap().WithZone("")
}

// retryAfter renders a wait as a Retry-After value in whole seconds.
func retryAfter(d time.Duration) string {
	return strconv.Itoa(int(math.Ceil(max(d.Seconds(), 1))))
}

// rateLimited answers 429 with Retry-After.
func rateLimited(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", retryAfter(wait))
	http.Error(w, "Too Many Requests: slow down and retry after the Retry-After delay", http.StatusTooManyRequests)
}
