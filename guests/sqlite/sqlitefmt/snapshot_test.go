package sqlitefmt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// writerFile is a database file another process writes while it is read:
// each read of the header after the first few bumps the change counter,
// as a rollback-mode writer's transaction would.
type writerFile struct {
	b     []byte
	reads atomic.Int32
	quiet int32 // header reads after which the writer stops
}

func (w *writerFile) ReadAt(p []byte, off int64) (int, error) {
	if off == 0 {
		if n := w.reads.Add(1); n < w.quiet {
			binary.BigEndian.PutUint32(w.b[24:], binary.BigEndian.Uint32(w.b[24:])+1)
		}
	}
	return bytes.NewReader(w.b).ReadAt(p, off)
}

func TestSnapshotRetriesThenBusy(t *testing.T) {
	b := fileOf(t, "CREATE TABLE a(x);")
	open := func(w *writerFile) Opener {
		return func() (Files, error) { return Files{DB: w, DBSize: int64(len(w.b)), Close: func() {}}, nil }
	}
	read := func(w *writerFile) ([]Object, error) {
		var objs []Object
		err := Snapshot(open(w), Limits{}, func(d *DB) error {
			var err error
			objs, err = d.Schema()
			return err
		})
		return objs, err
	}

	busy := &writerFile{b: bytes.Clone(b), quiet: 1 << 30}
	_, err := read(busy)
	require.ErrorIs(t, err, ErrBusy)
	require.Contains(t, err.Error(), "retry when the writer is done")

	// A writer that stops after two transactions: the third attempt reads.
	settles := &writerFile{b: bytes.Clone(b), quiet: 5}
	objs, err := read(settles)
	require.NoError(t, err)
	require.Len(t, objs, 1)

	// An error while the file moved is retried, not reported.
	calls := 0
	err = Snapshot(open(&writerFile{b: bytes.Clone(b), quiet: 3}), Limits{}, func(d *DB) error {
		calls++
		if calls == 1 {
			return ErrCorrupt
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 2, calls)

	// A malformed read of a file whose stamp did not move (a commit that
	// wrote page 1 before the scan and the rest during it) is looked at
	// again; a file that stays malformed is reported as such.
	calls = 0
	err = Snapshot(open(&writerFile{b: bytes.Clone(b)}), Limits{}, func(d *DB) error {
		calls++
		if calls == 1 {
			return fmt.Errorf("read page 2: %w", ErrCorrupt)
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 2, calls)

	// An error on a file that did not move is the answer.
	calls = 0
	err = Snapshot(open(&writerFile{b: bytes.Clone(b)}), Limits{}, func(d *DB) error { calls++; return ErrCorrupt })
	require.ErrorIs(t, err, ErrCorrupt)
	require.Equal(t, Attempts, calls)
	require.False(t, errors.Is(err, ErrBusy))
}
