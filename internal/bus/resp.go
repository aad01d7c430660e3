package bus

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// The bus speaks RESP2, the Redis serialization protocol
// (https://redis.io/docs/latest/develop/reference/protocol-spec/): a
// command is an array of bulk strings; a reply is a simple string, an
// error, an integer, a bulk string or an array of replies. The bus uses
// ten commands, so it carries this small codec rather than a client
// library of several hundred (RATIONALE: "Why the bus speaks RESP
// itself").
//
// Replies come from the network and are bounded like any other input: a
// line, a bulk string, an array's length, the nesting and the bytes of a
// whole reply all have limits, past which the reply is an error and the
// connection is dropped.
const (
	// maxBulk is the largest bulk string read (an event is at most
	// MaxEvent; a subscription's URI far less).
	maxBulk = 1 << 20
	// maxArray is the most elements of one array.
	maxArray = 1 << 16
	// maxDepth is the deepest nesting read (the bus reads arrays of
	// strings and integers, EXEC an array of those).
	maxDepth = 3
	// maxReply is the most bytes of one reply, nested parts included.
	maxReply = 16 << 20
)

// errProtocol marks a reply that breaks RESP or its bounds: the
// connection cannot be trusted to be in step any more.
var errProtocol = errors.New("redis protocol error")

// replyError is an error reply ("-ERR ..."): a command failed, the
// connection is fine.
type replyError string

func (e replyError) Error() string { return "redis: " + string(e) }

// writeCommand writes args as one command.
func writeCommand(w *bufio.Writer, args ...string) error {
	w.WriteByte('*')
	w.WriteString(strconv.Itoa(len(args)))
	w.WriteString("\r\n")
	for _, a := range args {
		w.WriteByte('$')
		w.WriteString(strconv.Itoa(len(a)))
		w.WriteString("\r\n")
		w.WriteString(a)
		if _, err := w.WriteString("\r\n"); err != nil {
			return err
		}
	}
	return nil
}

// reader reads replies within the bounds above.
type reader struct {
	r      *bufio.Reader
	budget int
}

// readReply reads one reply: a string, an int64, nil (a null bulk or
// array), a replyError or a []any of those.
func readReply(r *bufio.Reader) (any, error) {
	rd := reader{r: r, budget: maxReply}
	return rd.value(0)
}

func (rd *reader) value(depth int) (any, error) {
	line, err := rd.line()
	if err != nil {
		return nil, err
	}
	if len(line) == 0 {
		return nil, fmt.Errorf("%w: empty line", errProtocol)
	}
	body := string(line[1:])
	switch line[0] {
	case '+':
		return body, nil
	case '-':
		return replyError(body), nil
	case ':':
		n, err := strconv.ParseInt(body, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: integer %q", errProtocol, body)
		}
		return n, nil
	case '$':
		n, err := rd.length(body, maxBulk)
		if err != nil || n < 0 {
			return nil, err
		}
		return rd.bulk(n)
	case '*':
		n, err := rd.length(body, maxArray)
		if err != nil || n < 0 {
			return nil, err
		}
		if depth >= maxDepth {
			return nil, fmt.Errorf("%w: arrays nested deeper than %d", errProtocol, maxDepth)
		}
		out := make([]any, 0, min(n, 64))
		for range n {
			v, err := rd.value(depth + 1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: unknown reply type %q", errProtocol, line[0])
}

// line reads up to CRLF. bufio's buffer bounds it: a longer line is an
// error, not a larger buffer.
func (rd *reader) line() ([]byte, error) {
	line, err := rd.r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("%w: line too long", errProtocol)
		}
		return nil, err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("%w: line not ended by CRLF", errProtocol)
	}
	if err := rd.spend(len(line)); err != nil {
		return nil, err
	}
	return line[:len(line)-2], nil
}

// length reads a bulk's or array's length: -1 (null) up to limit.
func (rd *reader) length(s string, limit int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < -1 || n > limit {
		return 0, fmt.Errorf("%w: length %q (at most %d)", errProtocol, s, limit)
	}
	return n, nil
}

func (rd *reader) bulk(n int) (string, error) {
	if err := rd.spend(n + 2); err != nil {
		return "", err
	}
	buf := make([]byte, n+2)
	if _, err := io.ReadFull(rd.r, buf); err != nil {
		return "", err
	}
	if buf[n] != '\r' || buf[n+1] != '\n' {
		return "", fmt.Errorf("%w: bulk string not ended by CRLF", errProtocol)
	}
	return string(buf[:n]), nil
}

func (rd *reader) spend(n int) error {
	rd.budget -= n
	if rd.budget < 0 {
		return fmt.Errorf("%w: reply larger than %d bytes", errProtocol, maxReply)
	}
	return nil
}
