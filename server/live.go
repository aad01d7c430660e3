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
	// DefaultNotifyDelay is how long changes are collected before the
	// clients are told, so that a burst of changes is announced once. It
	// is not configurable: tests shorten it (export_test.go).
	DefaultNotifyDelay = 150 * time.Millisecond
	// maxNotifyDelay is the longest notify delay a Config accepts.
	maxNotifyDelay = 10 * time.Second
)

// WithMaxSubscriptions bounds what one session may make the server hold:
// at most n subscribed resources (resources/subscribe, or the
// resourceSubscriptions of subscriptions/listen), n URIs named by its open
// listens (repeats included), and n open subscriptions/listen requests;
// and what all sessions together may: 100 times as many subscribed
// resources and open listens. Past a bound the request fails with -32602.
// Defaults to DefaultMaxSubscriptions.
func (c Config) WithMaxSubscriptions(n int) Config {
	c.maxSubs = n
	return c
}

func (c Config) validateLive() error {
	if c.maxSubs < 1 || c.maxSubs > MaxSubscriptions {
		return fmt.Errorf("max subscriptions %d out of range: use 1 to %d", c.maxSubs, MaxSubscriptions)
	}
	if c.notifyDelay <= 0 || c.notifyDelay > maxNotifyDelay {
		return fmt.Errorf("notify delay %s out of range: use a duration above 0 and at most %s, such as 150ms", c.notifyDelay, maxNotifyDelay)
	}
	return nil
}

// initLive hooks live resources into go-sdk, once, by New.
func (s *Server) initLive() { s.mcp.AddSendingMiddleware(s.sending) }
