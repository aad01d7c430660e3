package server

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Framing of the stdio transport: newline-delimited JSON-RPC, one message
// or batch per line (stdio.go checks and serves each line).

// maxFrame bounds one input line, as go-sdk's DefaultMaxLineLength does.
const maxFrame = 16 << 20

func newFrameReader(in io.Reader) *bufio.Reader { return bufio.NewReaderSize(in, 64<<10) }

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
