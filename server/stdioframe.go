package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"
)

// go-sdk's stdio transport decodes its input as one JSON stream and ends the
// session at the first line that is not JSON, not a JSON-RPC 2.0 message or
// not an object: one bad line from a client loses every request after it.
// frameFilter sits in front of it. It reads the input line by line (bounded),
// answers a line that is not JSON with -32700 and a line that is not a
// JSON-RPC message with -32600, as JSON-RPC 2.0 says, and passes every good
// line on unchanged.

// maxFrame bounds one input line, as go-sdk's DefaultMaxLineLength does.
const maxFrame = 16 << 20

// lockedWriter serializes whole writes to out: go-sdk writes each message
// with one Write, and so does the filter.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// filterInput returns the reader go-sdk reads good lines from. The filter
// goroutine ends at EOF or a read error of in, closing the pipe with it, or
// when the caller closes the returned reader; it writes refusals to out.
func filterInput(in io.Reader, out io.Writer) *io.PipeReader {
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(filterLines(in, out, pw))
	}()
	return pr
}

func filterLines(in io.Reader, out io.Writer, good io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readFrame(r)
		switch {
		case tooLong:
			writeRefusal(out, nil, -32600, "invalid request: message longer than 16 MiB")
		case len(bytes.TrimSpace(line)) > 0:
			if id, code, msg := checkFrame(line); code != 0 {
				writeRefusal(out, id, code, msg)
			} else if _, werr := good.Write(append(line, '\n')); werr != nil {
				return werr
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readFrame reads one line without its newline; a line over maxFrame is
// discarded up to its newline and reported as too long.
func readFrame(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > maxFrame {
			tooLong, line = true, nil
		} else if !tooLong {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// checkFrame reports why a line is refused (code 0: it is not): not JSON,
// or not a JSON-RPC 2.0 object (or a batch of them). id is the request's
// id when one could be read, else null.
func checkFrame(line []byte) (id json.RawMessage, code int, msg string) {
	if !json.Valid(line) {
		return nil, -32700, "parse error: the line is not JSON"
	}
	trimmed := bytes.TrimSpace(line)
	if trimmed[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(trimmed, &batch); err != nil || len(batch) == 0 {
			return nil, -32600, "invalid request: an empty batch or a batch of non-objects"
		}
		for _, m := range batch {
			if id, code, msg := checkMessage(m); code != 0 {
				return id, code, msg
			}
		}
		return nil, 0, ""
	}
	return checkMessage(trimmed)
}

func checkMessage(m json.RawMessage) (json.RawMessage, int, string) {
	var head struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(m, &head); err != nil {
		return nil, -32600, "invalid request: a message must be a JSON object"
	}
	id := head.ID
	if len(id) > 0 && id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9') {
		id = nil // only strings and numbers are echoed
	}
	if head.JSONRPC == nil || *head.JSONRPC != "2.0" {
		return id, -32600, `invalid request: "jsonrpc" must be "2.0"`
	}
	return nil, 0, ""
}

func writeRefusal(out io.Writer, id json.RawMessage, code int, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	resp, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	_, _ = out.Write(append(resp, '\n'))
}
