package server

import (
	"context"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// outboxes holds, per session, the change notifications not yet sent, and
// sends each session's in order on a goroutine of its own, so that a
// session whose client does not read (its writes block until the
// transport's write deadline) delays only its own notifications: a flush
// only queues, and no lock is held across a write.
//
// A session's queue holds each notification once: a change announced
// again while the same notification still waits is not queued twice. Every
// entry is then a distinct (method, uri, listen) of the session, so the
// queue is bounded by what the session subscribed to; past max entries
// (which that bound does not reach) notifications are dropped, logged and
// counted.
type outboxes struct {
	max  int
	send func(*outgoing) error
	log  *slog.Logger
	lag  func(reason string) // told of each dropped notification

	mu    sync.Mutex
	boxes map[*mcp.ServerSession]*outbox // sessions with notifications to send
	wg    sync.WaitGroup                 // the senders
}

// outbox is one session's queue; its sender runs while it is not empty.
type outbox struct {
	queue  []*outgoing
	queued map[outKey]bool
}

// outKey identifies a notification within a session's queue.
type outKey struct {
	method, uri string
	id          any // a JSON-RPC request id: a string or a number
}

func newOutboxes(max int, send func(*outgoing) error, log *slog.Logger, lag func(string)) *outboxes {
	return &outboxes{max: max, send: send, log: log, lag: lag, boxes: map[*mcp.ServerSession]*outbox{}}
}

// put queues out, each on its session's queue, starting the senders of
// sessions that had nothing queued. It never blocks on a client.
func (b *outboxes) put(out []*outgoing) {
	b.mu.Lock()
	defer b.mu.Unlock()
	dropped := 0
	for _, o := range out {
		box := b.boxes[o.ss]
		if box == nil {
			box = &outbox{queued: map[outKey]bool{}}
			b.boxes[o.ss] = box
			b.wg.Add(1)
			go b.run(o.ss, box)
		}
		k := outKey{o.method, o.uri, o.id}
		switch {
		case box.queued[k]: // already waiting: the client hears it once
		case len(box.queue) >= b.max:
			dropped++
		default:
			box.queued[k] = true
			box.queue = append(box.queue, o)
		}
	}
	if dropped > 0 {
		b.log.Warn("change notifications dropped: a session's queue is full", "dropped", dropped, "queue", b.max)
		b.lag("queue_full")
	}
}

// run sends what ss has queued, in order, until the queue is empty. A
// notification that cannot be sent (the session has no stream, or its
// stream failed) empties the queue: the session gets none of what waits.
func (b *outboxes) run(ss *mcp.ServerSession, box *outbox) {
	defer b.wg.Done()
	for {
		b.mu.Lock()
		if len(box.queue) == 0 {
			delete(b.boxes, ss)
			b.mu.Unlock()
			return
		}
		o := box.queue[0]
		box.queue[0] = nil
		box.queue = box.queue[1:]
		delete(box.queued, outKey{o.method, o.uri, o.id})
		b.mu.Unlock()
		if err := b.send(o); err != nil {
			b.mu.Lock()
			n := len(box.queue)
			box.queue = nil
			clear(box.queued)
			b.mu.Unlock()
			b.log.Debug("change notification not sent", "method", o.method, "error", err, "dropped", n)
		}
	}
}

// wait returns once every sender has emptied its queue.
func (b *outboxes) wait() { b.wg.Wait() }

// sendOne sends one change notification on its session, through go-sdk
// (see sending in listen.go). A write blocks at most for the transport's
// write deadline (HTTPConfig.WithWriteTimeout); sendTimeout bounds what
// else go-sdk might wait for.
func sendOne(o *outgoing) error {
	ctx, cancel := context.WithTimeout(context.Background(), sendTimeout)
	defer cancel()
	return o.ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: o})
}
