// Package bus is the Redis side of a fleet of mcp-wasm replicas: it
// implements server.Bus (an event channel every replica hears, claims that
// one replica wins, the legacy subscriptions of sealed sessions) with the
// a small RESP2 client of its own (resp.go, conn.go), on any Redis (or
// Redis-protocol server) a redis:// or rediss:// URL names, AUTH, database
// and TLS included.
//
// It refuses to trust the bus further than its bounds: a reply past the
// codec's limits drops the connection, an event larger than MaxEvent or
// that does not decode strictly is dropped and counted, and events wait
// in a bounded buffer (EventBuffer): past it they are dropped and counted
// rather than grow. It never blocks a caller for longer than the caller's
// context, nor longer than ioTimeout.
package bus

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-wasm/mcp-wasm/server"
)

// Bounds of the bus.
const (
	// MaxEvent is the largest event accepted from the bus.
	MaxEvent = 64 << 10
	// EventBuffer is the most events waiting for the server.
	EventBuffer = 1024
	// DefaultPrefix starts every key and the channel, so that fleets can
	// share a Redis database under different prefixes.
	DefaultPrefix = "mcp-wasm:"
)

// Redis is a server.Bus on Redis.
type Redis struct {
	pool    pool
	prefix  string
	log     *slog.Logger
	dropped atomic.Int64
}

var _ server.Bus = (*Redis)(nil)

// Open connects to the Redis that url names (redis://[user:password@]host:port/db,
// rediss:// for TLS), under prefix ("" for DefaultPrefix). It does not
// wait for Redis: a fleet starts while its bus is down, and the client
// reconnects by itself.
func Open(url, prefix string, log *slog.Logger) (*Redis, error) {
	if !strings.HasPrefix(url, "redis://") && !strings.HasPrefix(url, "rediss://") {
		return nil, fmt.Errorf("bus %q: give a redis:// or rediss:// URL, e.g. redis://redis:6379/0", redact(url))
	}
	opts, err := parseURL(url)
	if err != nil {
		return nil, fmt.Errorf("bus %s: %w: give a URL such as redis://[user:password@]host:6379/0", redact(url), err)
	}
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if log == nil {
		log = slog.Default()
	}
	return &Redis{pool: pool{opts: opts}, prefix: prefix, log: log}, nil
}

// redact drops the password of a URL for messages.
func redact(url string) string {
	scheme, rest, ok := strings.Cut(url, "://")
	if !ok {
		return "(unparsable)"
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		rest = "***@" + rest[at+1:]
	}
	return scheme + "://" + rest
}

// Close closes the idle connections; later calls fail. Run stops with
// its context.
func (b *Redis) Close() error { return b.pool.close() }

// do runs one command.
func (b *Redis) do(ctx context.Context, args ...string) (any, error) {
	r, err := b.pool.do(ctx, args)
	if err != nil {
		return nil, err
	}
	return r[0], nil
}

// Ping checks that Redis answers.
func (b *Redis) Ping(ctx context.Context) error {
	_, err := b.do(ctx, "PING")
	return err
}

// Listeners is how many connections listen to the fleet's channel now
// (PUBSUB NUMSUB): one per replica that hears the bus.
func (b *Redis) Listeners(ctx context.Context) (int64, error) {
	r, err := b.do(ctx, "PUBSUB", "NUMSUB", b.channel())
	if err != nil {
		return 0, err
	}
	if a, ok := r.([]any); ok && len(a) == 2 {
		if n, ok := a[1].(int64); ok {
			return n, nil
		}
	}
	return 0, fmt.Errorf("%w: PUBSUB NUMSUB answered %v", errProtocol, r)
}

// Dropped is the events dropped as malformed, too large or past the
// buffer.
func (b *Redis) Dropped() int64 { return b.dropped.Load() }

func (b *Redis) channel() string { return b.prefix + "events" }

// Publish implements server.Bus.
func (b *Redis) Publish(ctx context.Context, ev server.BusEvent) error {
	msg, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("publishing: %w", err)
	}
	if _, err := b.do(ctx, "PUBLISH", b.channel(), string(msg)); err != nil {
		return fmt.Errorf("publishing on the bus: %w", err)
	}
	return nil
}

// Claim implements server.Bus with SET NX PX.
func (b *Redis) Claim(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	r, err := b.do(ctx, "SET", b.prefix+key, "1", "NX", "PX", millis(ttl))
	if err != nil {
		return false, fmt.Errorf("claiming on the bus: %w", err)
	}
	return r != nil, nil // OK when set, a null bulk when the key exists
}

// millis is a ttl for PX/PEXPIRE, at least 1 ms.
func millis(ttl time.Duration) string {
	return strconv.FormatInt(max(ttl.Milliseconds(), 1), 10)
}

// Claimed implements server.Bus.
func (b *Redis) Claimed(ctx context.Context, key string) (bool, error) {
	r, err := b.do(ctx, "EXISTS", b.prefix+key)
	if err != nil {
		return false, fmt.Errorf("reading the bus: %w", err)
	}
	n, _ := r.(int64)
	return n > 0, nil
}

func (b *Redis) subsKey(session string) string { return b.prefix + "subs:" + session }

// PutSubscription implements server.Bus: a hash per session, which
// expires with the session, set and renewed in one transaction.
func (b *Redis) PutSubscription(ctx context.Context, session, key, uri string, ttl time.Duration) error {
	k := b.subsKey(session)
	_, err := b.pool.do(ctx, []string{"MULTI"}, []string{"HSET", k, key, uri},
		[]string{"PEXPIRE", k, millis(ttl)}, []string{"EXEC"})
	if err != nil {
		return fmt.Errorf("recording a subscription on the bus: %w", err)
	}
	return nil
}

// DeleteSubscription implements server.Bus.
func (b *Redis) DeleteSubscription(ctx context.Context, session, key string) error {
	if _, err := b.do(ctx, "HDEL", b.subsKey(session), key); err != nil {
		return fmt.Errorf("dropping a subscription on the bus: %w", err)
	}
	return nil
}

// Subscriptions implements server.Bus.
func (b *Redis) Subscriptions(ctx context.Context, session string) (map[string]string, error) {
	r, err := b.do(ctx, "HGETALL", b.subsKey(session))
	if err != nil {
		return nil, fmt.Errorf("reading subscriptions on the bus: %w", err)
	}
	a, ok := r.([]any)
	if !ok || len(a)%2 != 0 {
		return nil, fmt.Errorf("reading subscriptions on the bus: %w: HGETALL answered %T", errProtocol, r)
	}
	m := make(map[string]string, len(a)/2)
	for i := 0; i < len(a); i += 2 {
		k, ok1 := a[i].(string)
		v, ok2 := a[i+1].(string)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("reading subscriptions on the bus: %w: HGETALL answered a non-string", errProtocol)
		}
		m[k] = v
	}
	return m, nil
}

// Run implements server.Bus: it listens on the fleet's channel until ctx
// ends, reconnecting and resubscribing after a lost connection (events
// published meanwhile are lost: Redis pub/sub is fire and forget), and
// hands each event to handle. Events wait in a buffer of EventBuffer;
// past it they are dropped and counted.
func (b *Redis) Run(ctx context.Context, handle func(server.BusEvent)) {
	payloads := make(chan string, EventBuffer)
	go b.listen(ctx, payloads)
	for {
		select {
		case <-ctx.Done():
			return
		case p := <-payloads:
			ev, err := decode(p)
			if err != nil {
				b.drop("bus event dropped", err)
				continue
			}
			handle(ev)
		}
	}
}

func (b *Redis) drop(msg string, err error) {
	if b.dropped.Add(1) == 1 {
		b.log.Warn(msg, "error", err)
	}
}

// Bounds of a subscription's connection.
const (
	// pingEvery is how often a listening connection is probed; a
	// connection silent for three of these is dead.
	pingEvery = 10 * time.Second
	// retryMax is the longest wait between reconnections.
	retryMax = 2 * time.Second
)

// listen keeps one subscribed connection until ctx ends.
func (b *Redis) listen(ctx context.Context, out chan<- string) {
	wait := 50 * time.Millisecond
	for failures := 0; ctx.Err() == nil; failures++ {
		c, err := dial(ctx, b.pool.opts)
		if err == nil {
			var heard bool
			heard, err = b.subscribed(ctx, c, out)
			_ = c.close()
			if heard {
				failures, wait = 0, 50*time.Millisecond
			}
		}
		if ctx.Err() != nil {
			return
		}
		if failures == 0 {
			b.log.Warn("bus connection lost; reconnecting", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, retryMax)
	}
}

// subscribed subscribes c to the channel and passes messages on until
// the connection fails or ctx ends. heard says whether the subscription
// was confirmed.
func (b *Redis) subscribed(ctx context.Context, c *conn, out chan<- string) (heard bool, err error) {
	stop := context.AfterFunc(ctx, func() { _ = c.close() })
	defer stop()
	var wmu sync.Mutex
	send := func(args ...string) error {
		wmu.Lock()
		defer wmu.Unlock()
		_ = c.nc.SetWriteDeadline(time.Now().Add(ioTimeout))
		if err := writeCommand(c.w, args...); err != nil {
			return err
		}
		return c.w.Flush()
	}
	if err := send("SUBSCRIBE", b.channel()); err != nil {
		return false, err
	}
	pinged := make(chan struct{})
	defer close(pinged)
	go func() {
		t := time.NewTicker(pingEvery)
		defer t.Stop()
		for {
			select {
			case <-pinged:
				return
			case <-t.C:
				if send("PING") != nil {
					return
				}
			}
		}
	}()
	for {
		_ = c.nc.SetReadDeadline(time.Now().Add(3 * pingEvery))
		v, err := readReply(c.r)
		if err != nil {
			return heard, err
		}
		a, ok := v.([]any)
		if !ok || len(a) == 0 {
			if re, ok := v.(replyError); ok {
				return heard, re
			}
			return heard, fmt.Errorf("%w: unexpected %T on a subscription", errProtocol, v)
		}
		kind, _ := a[0].(string)
		switch {
		case kind == "subscribe":
			heard = true
		case kind == "message" && len(a) == 3:
			p, ok := a[2].(string)
			if !ok {
				b.drop("bus event dropped", errors.New("not a string"))
				continue
			}
			select {
			case out <- p:
			default:
				b.drop("bus event dropped", fmt.Errorf("more than %d events waiting", EventBuffer))
			}
		}
	}
}

// decode reads an event strictly.
func decode(payload string) (server.BusEvent, error) {
	var ev server.BusEvent
	if len(payload) > MaxEvent {
		return ev, errors.New("event too large")
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(payload)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ev); err != nil || dec.More() {
		return server.BusEvent{}, errors.New("malformed event")
	}
	return ev, nil
}
