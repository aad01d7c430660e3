// Package bus is the Redis side of a fleet of mcp-wasm replicas: it
// implements server.Bus (an event channel every replica hears, claims that
// one replica wins, the legacy subscriptions of sealed sessions) with the
// go-redis client, on any Redis (or Redis-protocol server) a redis:// or
// rediss:// URL names, AUTH and TLS included.
//
// It refuses to trust the bus further than its bounds: an event larger
// than MaxEvent or that does not decode strictly is dropped and counted,
// and events wait in a bounded buffer (EventBuffer): past it, go-redis
// drops them rather than grow. It never blocks a caller for longer than
// the caller's context.
package bus

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

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
	rdb     *redis.Client
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
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("bus %s: %w: give a URL such as redis://[user:password@]host:6379/0", redact(url), err)
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = 2*time.Second, 2*time.Second, 2*time.Second
	opts.MaxRetries = 1
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if log == nil {
		log = slog.Default()
	}
	return &Redis{rdb: redis.NewClient(opts), prefix: prefix, log: log}, nil
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

// Close closes the connections.
func (b *Redis) Close() error { return b.rdb.Close() }

// Ping checks that Redis answers.
func (b *Redis) Ping(ctx context.Context) error { return b.rdb.Ping(ctx).Err() }

// Dropped is the events dropped as malformed or too large.
func (b *Redis) Dropped() int64 { return b.dropped.Load() }

func (b *Redis) channel() string { return b.prefix + "events" }

// Publish implements server.Bus.
func (b *Redis) Publish(ctx context.Context, ev server.BusEvent) error {
	msg, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("publishing: %w", err)
	}
	if err := b.rdb.Publish(ctx, b.channel(), msg).Err(); err != nil {
		return fmt.Errorf("publishing on the bus: %w", err)
	}
	return nil
}

// Claim implements server.Bus with SET NX PX.
func (b *Redis) Claim(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	ok, err := b.rdb.SetNX(ctx, b.prefix+key, 1, ttl).Result()
	if err != nil {
		return false, fmt.Errorf("claiming on the bus: %w", err)
	}
	return ok, nil
}

// Claimed implements server.Bus.
func (b *Redis) Claimed(ctx context.Context, key string) (bool, error) {
	n, err := b.rdb.Exists(ctx, b.prefix+key).Result()
	if err != nil {
		return false, fmt.Errorf("reading the bus: %w", err)
	}
	return n > 0, nil
}

func (b *Redis) subsKey(session string) string { return b.prefix + "subs:" + session }

// PutSubscription implements server.Bus: a hash per session, which
// expires with the session.
func (b *Redis) PutSubscription(ctx context.Context, session, key, uri string, ttl time.Duration) error {
	k := b.subsKey(session)
	_, err := b.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, k, key, uri)
		p.Expire(ctx, k, ttl)
		return nil
	})
	if err != nil {
		return fmt.Errorf("recording a subscription on the bus: %w", err)
	}
	return nil
}

// DeleteSubscription implements server.Bus.
func (b *Redis) DeleteSubscription(ctx context.Context, session, key string) error {
	if err := b.rdb.HDel(ctx, b.subsKey(session), key).Err(); err != nil {
		return fmt.Errorf("dropping a subscription on the bus: %w", err)
	}
	return nil
}

// Subscriptions implements server.Bus.
func (b *Redis) Subscriptions(ctx context.Context, session string) (map[string]string, error) {
	m, err := b.rdb.HGetAll(ctx, b.subsKey(session)).Result()
	if err != nil {
		return nil, fmt.Errorf("reading subscriptions on the bus: %w", err)
	}
	return m, nil
}

// Run implements server.Bus. go-redis resubscribes after a lost
// connection; events published meanwhile are lost, as Redis pub/sub is
// fire and forget.
func (b *Redis) Run(ctx context.Context, handle func(server.BusEvent)) {
	ps := b.rdb.Subscribe(ctx, b.channel())
	defer ps.Close()
	ch := ps.Channel(redis.WithChannelSize(EventBuffer), redis.WithChannelSendTimeout(5*time.Second))
	for {
		select {
		case <-ctx.Done():
			return
		case msg, ok := <-ch:
			if !ok {
				return
			}
			ev, err := decode(msg.Payload)
			if err != nil {
				if b.dropped.Add(1) == 1 {
					b.log.Warn("bus event dropped", "error", err)
				}
				continue
			}
			handle(ev)
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
