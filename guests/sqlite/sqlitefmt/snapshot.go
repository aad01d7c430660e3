package sqlitefmt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Files opens the database file and, when it exists, its -wal file. Close
// releases both. A Files is opened afresh for each attempt of a Snapshot.
type Files struct {
	DB      io.ReaderAt
	DBSize  int64
	WAL     io.ReaderAt // nil when there is no -wal file
	WALSize int64
	Close   func()
}

// Opener opens the files of one database for reading.
type Opener func() (Files, error)

// Attempts is how many times Snapshot reads a database that keeps
// changing before it gives up with ErrBusy.
const Attempts = 4

// Snapshot opens the database through open and calls read with it, then
// checks that nothing a writer changes moved while read ran: the first 100
// bytes of the database file (the change counter and schema cookie live
// there, and a rollback-mode writer bumps the counter in every
// transaction), the file sizes and the WAL header (a WAL writer appends
// frames, so the size moves; a checkpoint that restarts the log changes its
// salts). If something moved, or read failed while something moved, it
// tries again, at most Attempts times, then returns ErrBusy. A read that
// finds the file malformed is also tried again (a commit in progress can
// look like that), and reported only if every attempt finds it so. This is
// the reader's only concurrency rule: it takes no lock (WASI has none to
// take).
func Snapshot(open Opener, lim Limits, read func(*DB) error) error {
	var lastErr, corrupt error
	for attempt := range Attempts {
		f, err := open()
		if err != nil {
			return err
		}
		err = func() error {
			defer f.Close()
			before, err := Stamp(f)
			if err != nil {
				return err
			}
			d, err := Open(f.DB, f.DBSize, f.WAL, f.WALSize, lim)
			if err == nil {
				d.Stamp = before
				err = read(d)
			}
			after, serr := Stamp(f)
			if serr != nil || !bytes.Equal(before, after) {
				return errMoved{err}
			}
			return err
		}()
		var moved errMoved
		switch {
		case errors.As(err, &moved):
			lastErr = moved.err
		case errors.Is(err, ErrCorrupt) && attempt < Attempts-1:
			// A rollback-mode commit writes page 1 (the change counter)
			// first, then the other pages: a scan inside that window sees
			// the new counter twice and a mix of pages, which shows as a
			// malformed file. Look again before calling the file corrupt.
			corrupt = err
		case errors.Is(err, ErrCorrupt) && corrupt != nil:
			return err
		default:
			return err
		}
	}
	if lastErr != nil {
		return fmt.Errorf("%w: it changed during each of %d reads (last: %v): retry when the writer is done", ErrBusy, Attempts, lastErr)
	}
	return fmt.Errorf("%w: it changed during each of %d reads: retry when the writer is done", ErrBusy, Attempts)
}

type errMoved struct{ err error }

func (e errMoved) Error() string { return "database changed during the read" }

// Stamp is what a writer changes: the database header, the WAL's header,
// and whether each file still ends at the size it was opened with. Equal
// stamps mean a reader may reuse what it read before.
func Stamp(f Files) ([]byte, error) {
	out := make([]byte, 0, HeaderSize+walHeaderSize+2)
	var b [HeaderSize]byte
	n, err := f.DB.ReadAt(b[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read header: %w", err)
	}
	out = append(out, b[:n]...)
	out = append(out, endMark(f.DB, f.DBSize), byte(f.DBSize), byte(f.DBSize>>8), byte(f.DBSize>>16), byte(f.DBSize>>24), byte(f.DBSize>>32))
	if f.WAL != nil {
		var w [walHeaderSize]byte
		n, err := f.WAL.ReadAt(w[:], 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read wal header: %w", err)
		}
		out = append(out, w[:n]...)
		out = append(out, endMark(f.WAL, f.WALSize), byte(f.WALSize), byte(f.WALSize>>8), byte(f.WALSize>>16), byte(f.WALSize>>24), byte(f.WALSize>>32))
	}
	return out, nil
}

// endMark tells whether the file still ends where it did: 1 when the last
// byte is readable and nothing follows it, 0 otherwise.
func endMark(r io.ReaderAt, size int64) byte {
	var b [2]byte
	if size == 0 {
		if n, _ := r.ReadAt(b[:1], 0); n == 0 {
			return 1
		}
		return 0
	}
	if n, _ := r.ReadAt(b[:], size-1); n == 1 {
		return 1
	}
	return 0
}
