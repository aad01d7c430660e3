package bus

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// Timeouts and pool size of the bus's connections.
const (
	// ioTimeout bounds a dial, a TLS handshake and a command's round trip
	// when the caller's context allows longer: a bus that stops answering
	// costs a replica an error, never a stuck request.
	ioTimeout = 2 * time.Second
	// maxIdle is the most idle connections kept for commands.
	maxIdle = 4
)

// options is what a redis:// or rediss:// URL says.
type options struct {
	addr, host string
	user, pass string
	db         int
	tls        bool
}

// parseURL reads redis://[[user]:password@]host[:port][/db] (rediss://
// for TLS). Errors never echo the password.
func parseURL(raw string) (options, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return options{}, errors.New("not a URL")
	}
	var o options
	switch u.Scheme {
	case "redis":
	case "rediss":
		o.tls = true
	default:
		return options{}, fmt.Errorf("scheme %q is not redis or rediss", u.Scheme)
	}
	if u.Opaque != "" || u.Host == "" {
		return options{}, errors.New("no host")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return options{}, errors.New("query parameters and fragments are not supported")
	}
	o.host = u.Hostname()
	port := u.Port()
	if port == "" {
		port = "6379"
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return options{}, fmt.Errorf("port %q is not a port", port)
	}
	o.addr = net.JoinHostPort(o.host, port)
	if u.User != nil {
		pass, ok := u.User.Password()
		if !ok {
			return options{}, errors.New("user without a password: write user:password@ (or :password@)")
		}
		o.user, o.pass = u.User.Username(), pass
	}
	if db := u.Path; db != "" && db != "/" {
		n, err := strconv.Atoi(db[1:])
		if err != nil || n < 0 {
			return options{}, fmt.Errorf("database %q is not a number", db[1:])
		}
		o.db = n
	}
	return o, nil
}

// conn is one connection to Redis, used by one goroutine at a time.
type conn struct {
	nc net.Conn
	r  *bufio.Reader
	w  *bufio.Writer
}

// dial connects, authenticates and selects the database.
func dial(ctx context.Context, o options) (*conn, error) {
	ctx, cancel := context.WithTimeout(ctx, ioTimeout)
	defer cancel()
	d := net.Dialer{KeepAlive: 15 * time.Second}
	nc, err := d.DialContext(ctx, "tcp", o.addr)
	if err != nil {
		return nil, err
	}
	if o.tls {
		tc := tls.Client(nc, &tls.Config{ServerName: o.host, MinVersion: tls.VersionTLS12})
		if err := tc.HandshakeContext(ctx); err != nil {
			_ = nc.Close()
			return nil, err
		}
		nc = tc
	}
	c := &conn{nc: nc, r: bufio.NewReaderSize(nc, 4096), w: bufio.NewWriterSize(nc, 4096)}
	var hello [][]string
	switch {
	case o.user != "":
		hello = append(hello, []string{"AUTH", o.user, o.pass})
	case o.pass != "":
		hello = append(hello, []string{"AUTH", o.pass})
	}
	if o.db != 0 {
		hello = append(hello, []string{"SELECT", strconv.Itoa(o.db)})
	}
	for _, cmd := range hello {
		if _, err := c.do(ctx, cmd...); err != nil {
			_ = c.close()
			return nil, fmt.Errorf("%s: %w", cmd[0], err)
		}
	}
	return c, nil
}

// do sends cmds in one write and reads their replies. An error reply
// to any of them is returned as the error (the connection stays usable);
// any other error leaves the connection out of step: close it.
func (c *conn) do(ctx context.Context, cmds ...string) (any, error) {
	replies, err := c.pipeline(ctx, [][]string{cmds})
	if err != nil {
		return nil, err
	}
	return replies[0], nil
}

func (c *conn) pipeline(ctx context.Context, cmds [][]string) ([]any, error) {
	deadline := time.Now().Add(ioTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := c.nc.SetDeadline(deadline); err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { _ = c.nc.SetDeadline(time.Unix(1, 0)) })
	replies, err := c.exchange(cmds)
	if !stop() {
		// The context ended as the replies came: its deadline may land on
		// the connection's next use, so this one is done.
		return nil, ctx.Err()
	}
	return replies, err
}

func (c *conn) exchange(cmds [][]string) ([]any, error) {
	for _, args := range cmds {
		if err := writeCommand(c.w, args...); err != nil {
			return nil, err
		}
	}
	if err := c.w.Flush(); err != nil {
		return nil, err
	}
	replies := make([]any, len(cmds))
	var firstErr error
	for i := range cmds {
		v, err := readReply(c.r)
		if err != nil {
			return nil, err
		}
		if re, ok := v.(replyError); ok && firstErr == nil {
			firstErr = re
		}
		replies[i] = v
	}
	return replies, firstErr
}

func (c *conn) close() error { return c.nc.Close() }

// pool keeps a few idle connections for commands.
type pool struct {
	opts   options
	mu     sync.Mutex
	idle   []*conn
	closed bool
}

// do runs cmds on a pooled connection. A pooled connection that fails
// before any reply (Redis restarted, an idle timeout) is retried once on
// a fresh one.
func (p *pool) do(ctx context.Context, cmds ...[]string) ([]any, error) {
	c, pooled, err := p.get(ctx)
	if err != nil {
		return nil, err
	}
	replies, err := c.pipeline(ctx, cmds)
	if err != nil && pooled && !isReply(err) && ctx.Err() == nil {
		_ = c.close()
		if c, err = dial(ctx, p.opts); err != nil {
			return nil, err
		}
		replies, err = c.pipeline(ctx, cmds)
	}
	if err != nil && !isReply(err) {
		_ = c.close()
		return nil, err
	}
	p.put(c)
	return replies, err
}

func isReply(err error) bool {
	var re replyError
	return errors.As(err, &re)
}

func (p *pool) get(ctx context.Context) (*conn, bool, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, false, errors.New("bus closed")
	}
	if n := len(p.idle); n > 0 {
		c := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return c, true, nil
	}
	p.mu.Unlock()
	c, err := dial(ctx, p.opts)
	return c, false, err
}

func (p *pool) put(c *conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.idle) >= maxIdle {
		_ = c.close()
		return
	}
	p.idle = append(p.idle, c)
}

func (p *pool) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, c := range p.idle {
		_ = c.close()
	}
	p.idle = nil
	return nil
}
