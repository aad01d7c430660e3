package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one MCP connection of newline-delimited JSON-RPC read
// from in and written to out; every revision may be spoken on it, even
// several at once. It returns nil when in reaches EOF or ctx is done. Either
// way it first stops reading and lets the calls already read finish and be
// answered, for at most the drain timeout (Config.WithDrainTimeout; by
// default the request timeout), so
// that `printf '...' | mcp-wasm serve` gets its answers and a shutdown
// signal does not cut a read in half.
//
// No message ends the session: a line that is not JSON gets -32700, a
// message that is not a valid JSON-RPC 2.0 request -32600 (calls under
// their id when it can be echoed exactly, else id null; malformed
// notifications and responses get no reply), and the next line is served.
// A client that stops reading does end it: where out has write deadlines
// (a pipe, which is opened again non-blocking on Linux, or a net.Conn), a
// piece of a write (at most 64 KiB) left untaken for DefaultWriteTimeout
// ends the session with an error saying so.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	in, reopened := pollableInput(in)
	if reopened != nil {
		defer reopened.Close() // and so ends a read still waiting on it
	}
	out, reopenedOut := pollableOutput(out)
	if reopenedOut != nil {
		defer reopenedOut.Close()
	}
	grace := s.cfg.requestTimeout
	if s.cfg.drainTimeout > 0 {
		grace = s.cfg.drainTimeout
	}
	c := newStdioConn(in, out, ctx, grace, s.log)
	c.writeTimeout = s.cfg.stdioWriteTimeout
	c.lagging = func() { s.laggard("write_timeout") }
	// The session ends through the drained end of input, not through
	// go-sdk's own cancellation, which would cut in-flight calls; that
	// cancellation only comes one second after the drain bound, for a
	// session that cannot even write its answers.
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	// The listens of this connection end, each with its final result, when
	// its input does (listen.go).
	runCtx = context.WithValue(runCtx, listensEndKey{}, c.ending)
	if f := s.cfg.inputEnded; f != nil {
		context.AfterFunc(c.ending, f) // not stopped: it is the embedder's clock
	}
	unhook := context.AfterFunc(ctx, func() {
		hard := time.NewTimer(c.grace + time.Second)
		defer hard.Stop()
		select {
		case <-hard.C:
			cancel()
		case <-runCtx.Done():
		}
	})
	defer unhook()
	rootsCtx, stopRoots := context.WithCancel(runCtx)
	defer s.watchRoots(rootsCtx)() // after stopRoots: deferred calls run last first
	defer stopRoots()
	err := s.mcp.Run(runCtx, stdioTransport{c})
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, errStopped) || peerGone(err) || ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("serving stdio: %w", err)
}

// peerGone reports whether err is a write to a client that closed its end
// of the output (a pipe with no reader left). Like the end of its input,
// that is the client ending the session, not the server failing: nothing
// written after it can reach anyone.
func peerGone(err error) bool {
	return errors.Is(err, io.ErrClosedPipe) || errors.Is(err, syscall.EPIPE)
}

// errStopped ends the input when the serving context is done.
var errStopped = errors.New("server stopping")

// stdioTransport hands go-sdk the one connection of ServeStdio.
type stdioTransport struct{ c *stdioConn }

func (t stdioTransport) Connect(context.Context) (mcp.Connection, error) { return t.c, nil }

// stdioConn is the stdio connection, in place of go-sdk's IOTransport:
// it reads lines (bounded), checks each message (envelope.go) and answers
// the refused ones itself, so that nothing a client sends ends the session.
// It also
//   - serves batches only where the revision has them (2025-03-26 and
//     older, after initialize), answering a batch with one array;
//   - refuses a call whose id is already in flight (go-sdk would drop it);
//   - at end of input, or when stop is done, ends every open
//     subscriptions/listen (ending) and holds back the end of input until
//     the calls read, listens included, are answered or grace has passed:
//     go-sdk cancels every call in flight when input ends, and a listen
//     cut that way never sends its final result.
type stdioConn struct {
	lines <-chan frameOrErr
	stop  context.Context
	grace time.Duration
	log   *slog.Logger

	ending context.Context // done once input has ended: listens end
	end    context.CancelFunc

	wmu          sync.Mutex // serializes whole-line writes to out
	out          io.Writer
	writeTimeout time.Duration // for each piece of a write, where out has deadlines
	writeErr     error         // the write that missed its deadline: every later one fails
	lagging      func()        // told when a write misses its deadline

	// Read is not called concurrently: these belong to it.
	queue   []jsonrpc.Message // the rest of the batch being read
	lastErr error             // the end of input, after a last line without newline

	mu       sync.Mutex
	inflight map[jsonrpc.ID]bool   // calls read and not answered
	dropped  map[jsonrpc.ID]bool   // calls in flight the client cancelled: their answers are not sent
	batches  map[jsonrpc.ID]*batch // calls of a batch, until the batch is answered
	initID   *jsonrpc.ID           // the legacy initialize in flight
	rev      revision              // what initialize negotiated on this connection; "" before
	changed  chan struct{}         // closed and replaced on every answer
	closed   chan struct{}
	once     sync.Once
}

// batch collects the answers to the calls of one batch.
type batch struct {
	pending int
	answers []json.RawMessage
}

type frameOrErr struct {
	line    []byte
	tooLong bool
	err     error
}

func newStdioConn(in io.Reader, out io.Writer, stop context.Context, grace time.Duration, log *slog.Logger) *stdioConn {
	lines, closed := make(chan frameOrErr), make(chan struct{})
	c := &stdioConn{lines: lines, stop: stop, grace: grace, log: log, out: out, lagging: func() {},
		inflight: map[jsonrpc.ID]bool{}, dropped: map[jsonrpc.ID]bool{}, batches: map[jsonrpc.ID]*batch{},
		changed: make(chan struct{}), closed: closed}
	c.ending, c.end = context.WithCancel(context.Background())
	// The reader ends at EOF or a read error of in, or at its next line
	// once the connection is closed. A blocking in.Read cannot be
	// interrupted; stdin's pipe, reopened by pollableInput, is closed when
	// ServeStdio returns, which ends the read.
	go func() {
		r := newFrameReader(in)
		for {
			line, tooLong, err := readFrame(r)
			select {
			case lines <- frameOrErr{line, tooLong, err}:
			case <-closed:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return c
}

func (c *stdioConn) SessionID() string { return "" }

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for len(c.queue) == 0 {
		f := c.next(ctx)
		if f.err != nil && len(f.line) == 0 && !f.tooLong {
			if c.stop.Err() != nil && ctx.Err() == nil {
				f.err = errStopped
			}
			c.end()
			c.drain(ctx)
			return nil, f.err
		}
		// A last line without a newline comes with EOF: serve it, and
		// report the end of input at the next Read.
		c.lastErr, f.err = f.err, nil
		c.queue = c.accept(f)
	}
	m := c.queue[0]
	c.queue = c.queue[1:]
	return m, nil
}

// next returns the next line, or why there is none: the end of ctx or of
// the serving context (c.stop) ends the wait as well.
func (c *stdioConn) next(ctx context.Context) frameOrErr {
	if err := c.lastErr; err != nil {
		return frameOrErr{err: err}
	}
	select {
	case f := <-c.lines:
		return f
	case <-ctx.Done():
		return frameOrErr{err: ctx.Err()}
	case <-c.stop.Done():
		return frameOrErr{err: context.Canceled}
	case <-c.closed:
		return frameOrErr{err: io.EOF}
	}
}

// accept checks one line and returns the messages to serve; it answers
// what it refuses.
func (c *stdioConn) accept(f frameOrErr) []jsonrpc.Message {
	switch {
	case f.tooLong:
		_ = c.writeLine(refusal(nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: message longer than 16 MiB"}))
		return nil
	case len(bytes.Trim(f.line, " \t\r\n")) == 0:
		return nil
	}
	msgs, isBatch, whole := decodeFrame(f.line)
	if whole != nil {
		c.log.Debug("message refused", "reason", whole.Message)
		_ = c.writeLine(refusal(nil, whole))
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !isBatch {
		return c.acceptOne(msgs[0])
	}
	if !batchesAllowed(c.rev) {
		c.log.Debug("batch refused", "reason", "revision", "revision", string(c.rev))
		_ = c.writeLine(refusal(nil, errNoBatch))
		return nil
	}
	reason := checkBatch(msgs)
	if reason == "" {
		reason = c.inUse(msgs)
	}
	if reason != "" {
		c.log.Debug("batch refused", "reason", reason)
		if answers := batchRefusals(msgs, reason); len(answers) > 0 {
			_ = c.writeBatch(answers)
		}
		return nil
	}
	b := &batch{}
	out := make([]jsonrpc.Message, len(msgs))
	for i, m := range msgs {
		out[i] = m.msg
		if req, ok := m.msg.(*jsonrpc.Request); ok && req.IsCall() {
			b.pending++
			c.batches[req.ID] = b
			c.track(req)
		} else if ok {
			c.cancelling(req)
		}
	}
	return out
}

// acceptOne checks one message that is not in a batch. The caller holds c.mu.
func (c *stdioConn) acceptOne(m inbound) []jsonrpc.Message {
	if m.refusal != nil {
		c.log.Debug("message refused", "reason", m.refusal.Message)
		if m.answered() {
			_ = c.writeLine(refusal(m.id, m.refusal))
		}
		return nil
	}
	if req, ok := m.msg.(*jsonrpc.Request); ok && req.IsCall() {
		if c.inflight[req.ID] {
			_ = c.writeLine(refusal(nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: "invalid request: the id of a request still in flight: use a new id for each request"}))
			return nil
		}
		c.track(req)
	} else if ok {
		c.cancelling(req)
	}
	return []jsonrpc.Message{m.msg}
}

// inUse returns why a batch reuses the id of a call in flight, or "". The
// caller holds c.mu.
func (c *stdioConn) inUse(msgs []inbound) string {
	for i, m := range msgs {
		if req, ok := m.msg.(*jsonrpc.Request); ok && req.IsCall() && c.inflight[req.ID] {
			return fmt.Sprintf("message %d has the id of a request still in flight", i+1)
		}
	}
	return ""
}

// track records a call read; the end of input waits for its answer. The
// caller holds c.mu.
func (c *stdioConn) track(req *jsonrpc.Request) {
	c.inflight[req.ID] = true
	if req.Method == "initialize" {
		id := req.ID
		c.initID = &id
	}
}

// cancelling notes a notifications/cancelled for a call in flight: go-sdk
// cancels the call, and its answer (a listen's final result, an error) is
// not sent, since the cancellation rules say the receiver should not
// respond to a cancelled request and clients then meet an answer to an id
// they have forgotten. initialize cannot be cancelled. The caller holds
// c.mu.
func (c *stdioConn) cancelling(n *jsonrpc.Request) {
	if n.Method != notifyCancelled {
		return
	}
	id, ok := cancelledID(n.Params)
	if !ok || !c.inflight[id] || c.initID != nil && *c.initID == id {
		return
	}
	c.dropped[id] = true
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		b, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			return fmt.Errorf("encoding message: %w", err)
		}
		return c.writeLine(b)
	}
	resp = withErrorCode(resp)
	b, err := encodeResponse(resp)
	if err != nil {
		return fmt.Errorf("encoding response: %w", err)
	}
	c.mu.Lock()
	delete(c.inflight, resp.ID)
	drop := c.dropped[resp.ID]
	delete(c.dropped, resp.ID)
	if c.initID != nil && *c.initID == resp.ID {
		c.initID = nil
		if resp.Error == nil {
			c.rev = negotiated(resp.Result)
		}
	}
	bt := c.batches[resp.ID]
	delete(c.batches, resp.ID)
	close(c.changed)
	c.changed = make(chan struct{})
	if bt == nil {
		c.mu.Unlock()
		if drop {
			c.log.Debug("answer to a cancelled request not sent")
			return nil
		}
		return c.writeLine(b)
	}
	if !drop {
		bt.answers = append(bt.answers, b)
	}
	bt.pending--
	done := bt.pending == 0
	c.mu.Unlock()
	if done && len(bt.answers) > 0 {
		return c.writeBatch(bt.answers)
	}
	return nil
}

// encodeResponse is jsonrpc.EncodeMessage(resp), byte for byte, for the
// response to a call that succeeded: it writes the envelope itself and
// the result as it is, instead of encoding the envelope by reflection and
// compacting the result a second time, which was an eighth of the
// server's CPU per 1 KiB read (docs/performance.md). go-sdk makes every
// result with its own encoder (jsonrpc2.NewResponse), so it is compact,
// valid JSON; one with a line break in it (which would end the frame) or
// any other response goes through EncodeMessage.
func encodeResponse(resp *jsonrpc.Response) ([]byte, error) {
	res := resp.Result
	if resp.Error != nil || len(res) == 0 || bytes.IndexByte(res, '\n') >= 0 || bytes.IndexByte(res, '\r') >= 0 {
		return jsonrpc.EncodeMessage(resp)
	}
	const frame = len(`{"jsonrpc":"2.0","id":"","result":}`) + 1 // and the newline writeLine adds
	idLen := 20                                                  // an int64's digits
	if id, ok := resp.ID.Raw().(string); ok {
		idLen = len(id)
	}
	b := make([]byte, 0, frame+idLen+len(res))
	b = append(b, `{"jsonrpc":"2.0"`...)
	switch id := resp.ID.Raw().(type) {
	case nil: // no id: omitted, as EncodeMessage omits it
	case int64:
		b = strconv.AppendInt(append(b, `,"id":`...), id, 10)
	case string:
		if !plainString(id) {
			return jsonrpc.EncodeMessage(resp)
		}
		b = append(append(append(b, `,"id":"`...), id...), '"')
	default:
		return jsonrpc.EncodeMessage(resp)
	}
	b = append(append(b, `,"result":`...), res...)
	return append(b, '}'), nil
}

// plainString reports whether s is printable ASCII without a quote or a
// backslash: its JSON form is s in quotes.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// negotiated reads the protocol version of an initialize result.
func negotiated(result json.RawMessage) revision {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(result, &r)
	return revision(r.ProtocolVersion)
}

func (c *stdioConn) writeBatch(answers []json.RawMessage) error {
	b, err := json.Marshal(answers)
	if err != nil {
		return fmt.Errorf("encoding batch answer: %w", err)
	}
	return c.writeLine(b)
}

// writeLine writes b and a newline, in pieces of at most writeChunk bytes,
// each with the write timeout as its deadline where out has deadlines (a
// pipe, opened again by pollableOutput). A client that takes nothing for
// that long is not reading: its session ends (logged, counted), as it
// would if it had closed its end.
func (c *stdioConn) writeLine(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.writeErr != nil {
		return c.writeErr
	}
	b = append(b, '\n')
	dl, _ := c.out.(interface{ SetWriteDeadline(time.Time) error })
	for len(b) > 0 {
		if dl != nil && c.writeTimeout > 0 {
			_ = dl.SetWriteDeadline(time.Now().Add(c.writeTimeout))
		}
		n, err := c.out.Write(b[:min(len(b), writeChunk)])
		b = b[n:]
		if errors.Is(err, os.ErrDeadlineExceeded) {
			err = fmt.Errorf("the client did not read its output for %s: %w", c.writeTimeout, err)
			c.writeErr = err
			c.log.Warn("ending the stdio session: the client did not read its output within the write timeout",
				"write_timeout", c.writeTimeout)
			c.lagging()
			_ = c.Close()
			return err
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *stdioConn) Close() error {
	c.once.Do(func() { close(c.closed); c.end() })
	return nil
}

// drain waits until no call is pending, for at most grace.
func (c *stdioConn) drain(ctx context.Context) {
	timer := time.NewTimer(c.grace)
	defer timer.Stop()
	for {
		c.mu.Lock()
		n := len(c.inflight)
		changed := c.changed
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
