package server

import (
	"fmt"
	"time"
)

// Limits and defaults of live resources (subscriptions and change
// notifications).
const (
	// DefaultMaxSubscriptions is the default bound on the resources one
	// session may subscribe to, and on its open subscriptions/listen
	// requests.
	DefaultMaxSubscriptions = 1000
	// MaxSubscriptions is the largest bound WithMaxSubscriptions accepts.
	MaxSubscriptions = 100_000
	// DefaultMaxSubscriptionsTotal is the default bound on the resources
	// all sessions together may subscribe to. A subscription costs the
	// host about 360 bytes plus its URI (measured:
	// BenchmarkLiveMemory_subscription), at most 2.4 KiB with the longest
	// URI accepted: 50,000 of them hold at most about 120 MiB, an eighth
	// of serve's 1 GiB soft memory limit.
	DefaultMaxSubscriptionsTotal = 50_000
	// DefaultMaxSubscriptionsPerClient is the default bound on the
	// resources one client (client.go) may subscribe to across its
	// sessions: a tenth of the total, so that one client cannot take the
	// pool from the others.
	DefaultMaxSubscriptionsPerClient = 5000
	// DefaultMaxListens is the default bound on the subscriptions/listen
	// requests open at once, all clients together. Over HTTP each is an
	// open stream with its connection, request and session: about 60 KiB
	// of Go heap and stacks (measured: BenchmarkLiveMemory_listen) plus
	// the kernel's socket buffers. 2,000 of them hold about 120 MiB of Go
	// memory, an eighth of serve's soft limit.
	DefaultMaxListens = 2000
	// DefaultMaxListensPerClient is the default bound on the open
	// subscriptions/listen requests of one client: a tenth of the total
	// (the go-sdk client opens one listen per subscribed resource, and
	// one for list changes).
	DefaultMaxListensPerClient = 200
	// DefaultNotifyDelay is how long changes are collected before the
	// clients are told, so that a burst of changes is announced once. It
	// is not configurable: tests shorten it (export_test.go).
	DefaultNotifyDelay = 150 * time.Millisecond
	// maxNotifyDelay is the longest notify delay a Config accepts.
	maxNotifyDelay = 10 * time.Second
)

// liveShares are the per-client shares and totals of the live pools.
type liveShares struct {
	subsPerClient, subsTotal       int
	listensPerClient, listensTotal int
}

var defaultLiveShares = liveShares{
	subsPerClient: DefaultMaxSubscriptionsPerClient, subsTotal: DefaultMaxSubscriptionsTotal,
	listensPerClient: DefaultMaxListensPerClient, listensTotal: DefaultMaxListens,
}

// WithMaxSubscriptions bounds what one session may make the server hold:
// at most n subscribed resources (resources/subscribe, or the
// resourceSubscriptions of subscriptions/listen), n URIs named by its open
// listens (repeats included), and n open subscriptions/listen requests.
// Past a bound the request fails with -32602. Defaults to
// DefaultMaxSubscriptions.
func (c Config) WithMaxSubscriptions(n int) Config {
	c.maxSubs = n
	return c
}

// WithSubscriptionShares bounds the resources subscribed to by one client
// across its sessions (perClient) and by all clients together (total). A
// client is a token's principal, or an address when anonymous (client.go);
// stdio and in-process sessions are bound by the total only. Past a bound
// the request fails with -32602 saying which. Defaults to
// DefaultMaxSubscriptionsPerClient and DefaultMaxSubscriptionsTotal.
func (c Config) WithSubscriptionShares(perClient, total int) Config {
	c.liveShares.subsPerClient, c.liveShares.subsTotal = perClient, total
	return c
}

// WithListenShares bounds the open subscriptions/listen requests of one
// client across its sessions (perClient) and of all clients together
// (total), like WithSubscriptionShares. Defaults to
// DefaultMaxListensPerClient and DefaultMaxListens.
func (c Config) WithListenShares(perClient, total int) Config {
	c.liveShares.listensPerClient, c.liveShares.listensTotal = perClient, total
	return c
}

func (c Config) validateLive() error {
	if c.maxSubs < 1 || c.maxSubs > MaxSubscriptions {
		return fmt.Errorf("max subscriptions %d out of range: use 1 to %d", c.maxSubs, MaxSubscriptions)
	}
	sh := c.liveShares
	if sh.subsTotal < 1 || sh.subsPerClient < 1 || sh.subsPerClient > sh.subsTotal {
		return fmt.Errorf("subscriptions per client %d, total %d: use a total of at least 1 and a share from 1 to the total, such as %d and %d",
			sh.subsPerClient, sh.subsTotal, DefaultMaxSubscriptionsPerClient, DefaultMaxSubscriptionsTotal)
	}
	if sh.listensTotal < 1 || sh.listensPerClient < 1 || sh.listensPerClient > sh.listensTotal {
		return fmt.Errorf("listens per client %d, total %d: use a total of at least 1 and a share from 1 to the total, such as %d and %d",
			sh.listensPerClient, sh.listensTotal, DefaultMaxListensPerClient, DefaultMaxListens)
	}
	if c.notifyDelay <= 0 || c.notifyDelay > maxNotifyDelay {
		return fmt.Errorf("notify delay %s out of range: use a duration above 0 and at most %s, such as 150ms", c.notifyDelay, maxNotifyDelay)
	}
	return nil
}

// liveLimits are the bounds the subscriptions enforce.
func (c Config) liveLimits() liveLimits {
	return liveLimits{perSession: c.maxSubs,
		subsPerClient: c.liveShares.subsPerClient, subsTotal: c.liveShares.subsTotal,
		listensPerClient: c.liveShares.listensPerClient, listensTotal: c.liveShares.listensTotal}
}

// initLive hooks live resources into go-sdk, once, by New.
func (s *Server) initLive() { s.mcp.AddSendingMiddleware(s.sending) }

// LaggardObserver is an Observer that also counts the clients that could
// not keep up with their change notifications. reason is "write_timeout"
// (an event stream closed because its client did not read within the
// write timeout) or "queue_full" (notifications dropped from a session's
// queue).
type LaggardObserver interface {
	Laggard(reason string)
}

// laggard counts a client that could not keep up, if the observer counts.
func (s *Server) laggard(reason string) {
	if o, ok := s.cfg.observer.(LaggardObserver); ok {
		o.Laggard(reason)
	}
}
