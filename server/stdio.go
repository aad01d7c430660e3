package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one MCP connection of newline-delimited JSON-RPC read
// from in and written to out; every revision may be spoken on it, even
// several at once. It returns nil when in reaches EOF or ctx is done. Either
// way it first stops reading and lets the calls already read finish and be
// answered, for at most twice the call timeout, so that
// `printf '...' | mcp-wasm serve` gets its answers and a shutdown signal
// does not cut a read in half.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	w := &lockedWriter{w: out}
	filtered := filterInput(in, w)
	defer filtered.Close()
	t := &drainTransport{
		inner: &mcp.IOTransport{Reader: io.NopCloser(filtered), Writer: nopWriteCloser{w}},
		stop:  ctx,
		grace: 2 * s.cfg.callTimeout,
	}
	// The session ends through the drained end of input, not through
	// go-sdk's own cancellation, which would cut in-flight calls; that
	// cancellation only comes one second after the drain bound, for a
	// session that cannot even write its answers.
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	unhook := context.AfterFunc(ctx, func() {
		hard := time.NewTimer(t.grace + time.Second)
		defer hard.Stop()
		select {
		case <-hard.C:
			cancel()
		case <-runCtx.Done():
		}
	})
	defer unhook()
	err := s.mcp.Run(runCtx, t)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, errStopped) || ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("serving stdio: %w", err)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// errStopped ends the input when the serving context is done.
var errStopped = errors.New("server stopping")

// drainTransport wraps a transport's connection in a drainConn.
type drainTransport struct {
	inner mcp.Transport
	stop  context.Context
	grace time.Duration
}

func (t *drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainConn{Connection: c, stop: t.stop, grace: t.grace,
		pending: map[jsonrpc.ID]bool{}, changed: make(chan struct{}), closed: make(chan struct{})}, nil
}

// drainConn tracks the calls read and not yet answered. When input ends, or
// stop is done, it holds back the end of input until they are answered or
// grace has passed: go-sdk cancels every call in flight when input ends.
//
// Wrapping hides go-sdk's unexported session hook from its stdio
// connection, whose only use there is to refuse JSON-RPC batches from
// 2025-06-18 on; batches are therefore accepted on every revision.
type drainConn struct {
	mcp.Connection
	stop  context.Context
	grace time.Duration

	mu      sync.Mutex
	pending map[jsonrpc.ID]bool
	changed chan struct{} // closed and replaced on every answer
	closed  chan struct{}
	once    sync.Once
}

func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	readCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	unhook := context.AfterFunc(c.stop, cancel)
	defer unhook()
	msg, err := c.Connection.Read(readCtx)
	if err != nil {
		if c.stop.Err() != nil && ctx.Err() == nil {
			err = errStopped
		}
		c.drain(ctx)
		return nil, err
	}
	// A subscriptions/listen lasts until the session ends: it is not a call
	// to wait for, and go-sdk ends it when input ends.
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && req.Method != methodListen {
		c.mu.Lock()
		c.pending[req.ID] = true
		c.mu.Unlock()
	}
	return msg, nil
}

func (c *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		msg = withErrorCode(resp)
	}
	err := c.Connection.Write(ctx, msg)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		delete(c.pending, resp.ID)
		close(c.changed)
		c.changed = make(chan struct{})
		c.mu.Unlock()
	}
	return err
}

func (c *drainConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Connection.Close()
}

// drain waits until no call is pending, for at most grace.
func (c *drainConn) drain(ctx context.Context) {
	timer := time.NewTimer(c.grace)
	defer timer.Stop()
	for {
		c.mu.Lock()
		n, changed := len(c.pending), c.changed
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-changed:
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		case <-c.closed:
			return
		}
	}
}

// withErrorCode gives an error response that go-sdk built from a plain Go
// error (which it sends with code 0, e.g. a call before initialize or a
// second initialize) the code -32600, invalid request.
func withErrorCode(resp *jsonrpc.Response) *jsonrpc.Response {
	var werr *jsonrpc.Error
	if resp.Error == nil || errors.As(resp.Error, &werr) {
		return resp
	}
	fixed := *resp
	fixed.Error = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: resp.Error.Error()}
	return &fixed
}
