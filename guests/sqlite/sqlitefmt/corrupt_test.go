package sqlitefmt

import (
	"bytes"
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Hostile databases: corrupt copies of sqlite3-made files, one per class
// of attack on the reader. Each must cost a clear error, never a panic, a
// hang or unbounded memory.

// readAll opens b as a database and reads its schema and every table's rows.
func readAll(b, wal []byte, lim Limits) error {
	var d *DB
	var err error
	if wal == nil {
		d, err = Open(bytes.NewReader(b), int64(len(b)), nil, 0, lim)
	} else {
		d, err = Open(bytes.NewReader(b), int64(len(b)), bytes.NewReader(wal), int64(len(wal)), lim)
	}
	if err != nil {
		return err
	}
	objs, err := d.Schema()
	if err != nil {
		return err
	}
	for i, o := range objs {
		if i == 16 {
			break // enough to walk rows; every table would be quadratic in a fuzzed file
		}
		if o.Type == "table" && o.RootPage != 0 {
			if err := d.Rows(o.RootPage, func(int64, []Value) bool { return true }); err != nil {
				return err
			}
		}
	}
	return nil
}

func fileOf(t *testing.T, script string) []byte {
	t.Helper()
	b, err := os.ReadFile(makeDB(t, script))
	require.NoError(t, err)
	return b
}

// schemaCells returns page 1's cell offsets and the offset of its
// right-most pointer (0 on a leaf).
func schemaCells(b []byte) (cells []int, right int) {
	h := HeaderSize
	n := int(binary.BigEndian.Uint16(b[h+3:]))
	ptrs := h + 8
	if b[h] == pageTableInterior {
		ptrs, right = h+12, h+8
	}
	for i := range n {
		cells = append(cells, int(binary.BigEndian.Uint16(b[ptrs+2*i:])))
	}
	return cells, right
}

func TestHostileFiles(t *testing.T) {
	small := fileOf(t, "CREATE TABLE a(x); CREATE TABLE b(y); INSERT INTO a VALUES (1);")
	many := fileOf(t, thousandTables(300))
	long := fileOf(t, "CREATE TABLE big(a /* "+strings.Repeat("overflowing ", 3000)+" */);")
	mutate := func(src []byte, f func(b []byte) []byte) []byte { return f(bytes.Clone(src)) }
	pageSize := int(binary.BigEndian.Uint16(small[16:]))

	cases := []struct {
		name string
		file []byte
		lim  Limits
		want error
		msg  string
	}{
		{"not sqlite", []byte(strings.Repeat("not a database at all ", 50)), Limits{}, ErrNotSQLite, ""},
		{"header only", small[:HeaderSize], Limits{}, ErrCorrupt, "truncated"},
		{"truncated", small[:len(small)-pageSize/2], Limits{}, ErrCorrupt, "truncated"},
		{"page size 1000", mutate(small, func(b []byte) []byte { binary.BigEndian.PutUint16(b[16:], 1000); return b }), Limits{}, ErrCorrupt, "page size"},
		{"page size 256", mutate(small, func(b []byte) []byte { binary.BigEndian.PutUint16(b[16:], 256); return b }), Limits{}, ErrCorrupt, "page size"},
		{"reserved eats the page", mutate(small, func(b []byte) []byte { binary.BigEndian.PutUint16(b[16:], 512); b[20] = 40; return b }), Limits{}, ErrCorrupt, "usable"},
		{"bad encoding", mutate(small, func(b []byte) []byte { binary.BigEndian.PutUint32(b[56:], 9); return b }), Limits{}, ErrCorrupt, "encoding"},
		{"future format", mutate(small, func(b []byte) []byte { b[19] = 3; return b }), Limits{}, ErrCorrupt, "version"},
		{"header claims a billion pages", mutate(small, func(b []byte) []byte {
			binary.BigEndian.PutUint32(b[28:], 1<<30)
			return b
		}), Limits{}, ErrCorrupt, "truncated"},
		{"cell count past the page", mutate(small, func(b []byte) []byte { binary.BigEndian.PutUint16(b[HeaderSize+3:], 0xffff); return b }), Limits{}, ErrCorrupt, "cells"},
		{"cell pointer outside the page", mutate(small, func(b []byte) []byte { binary.BigEndian.PutUint16(b[HeaderSize+8:], 0xfff0); return b }), Limits{}, ErrCorrupt, "outside"},
		{"page type unknown", mutate(small, func(b []byte) []byte { b[HeaderSize] = 7; return b }), Limits{}, ErrCorrupt, "page type"},
		{"table root past the end", mutate(small, func(b []byte) []byte {
			// sqlite_schema's first row's rootpage column (a 1-byte int) -> 1.
			cells, _ := schemaCells(b)
			off := cells[0]
			_, k := uvarint(b[off:])
			_, k2 := uvarint(b[off+k:])
			rec := b[off+k+k2:]
			hs, _ := uvarint(rec)
			body := rec[hs:]
			body[len("table")+len("a")+len("a")] = 127
			return b
		}), Limits{}, ErrCorrupt, "outside"},
		{"interior page points to itself", mutate(many, func(b []byte) []byte {
			_, right := schemaCells(b)
			binary.BigEndian.PutUint32(b[right:], 1)
			return b
		}), Limits{}, ErrCorrupt, "loop"},
		{"child past the end", mutate(many, func(b []byte) []byte {
			_, right := schemaCells(b)
			binary.BigEndian.PutUint32(b[right:], 0x7fffffff)
			return b
		}), Limits{}, ErrCorrupt, "outside"},
		{"child is page 0", mutate(many, func(b []byte) []byte {
			cells, _ := schemaCells(b)
			binary.BigEndian.PutUint32(b[cells[0]:], 0)
			return b
		}), Limits{}, ErrCorrupt, "outside"},
		{"overflow chain loops", mutate(long, func(b []byte) []byte {
			first := firstOverflow(t, b)
			off := int64(first-1) * int64(pageSize)
			binary.BigEndian.PutUint32(b[off:], first)
			return b
		}), Limits{}, ErrCorrupt, "loop"},
		{"overflow chain ends early", mutate(long, func(b []byte) []byte {
			first := firstOverflow(t, b)
			binary.BigEndian.PutUint32(b[int64(first-1)*int64(pageSize):], 0)
			return b
		}), Limits{}, ErrCorrupt, "outside"},
		{"record size absurd", mutate(small, func(b []byte) []byte {
			cells, _ := schemaCells(b)
			copy(b[cells[0]:], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
			return b
		}), Limits{}, ErrTooLarge, "limit"},
		{"record header larger than record", mutate(small, func(b []byte) []byte {
			cells, _ := schemaCells(b)
			off := cells[0]
			_, k := uvarint(b[off:])
			_, k2 := uvarint(b[off+k:])
			b[off+k+k2] = 0x7f
			return b
		}), Limits{}, ErrCorrupt, "header size"},
		{"too many objects", many, Limits{MaxObjects: 100}, ErrTooLarge, "objects"},
		{"schema too large", many, Limits{MaxSchemaBytes: 4096}, ErrTooLarge, "bytes"},
		{"record over the payload limit", long, Limits{MaxPayload: 1024}, ErrTooLarge, "limit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := readAll(tc.file, nil, tc.lim)
			require.ErrorIs(t, err, tc.want)
			require.Contains(t, err.Error(), tc.msg)
		})
	}
}

// TestEmptyFile: sqlite3 leaves a 0-byte file when nothing was written,
// and SQLite reads it as an empty database.
func TestEmptyFile(t *testing.T) {
	d, err := Open(bytes.NewReader(nil), 0, nil, 0, Limits{})
	require.NoError(t, err)
	objs, err := d.Schema()
	require.NoError(t, err)
	require.Empty(t, objs)
}

// firstOverflow returns the first overflow page of page 1's only cell.
func firstOverflow(t *testing.T, b []byte) uint32 {
	t.Helper()
	cells, _ := schemaCells(b)
	require.Len(t, cells, 1)
	return binary.BigEndian.Uint32(b[overflowPointer(t, b, cells[0]):])
}

// overflowPointer returns the file offset of the overflow pointer of the
// table leaf cell at file offset off.
func overflowPointer(t *testing.T, b []byte, off int) int {
	t.Helper()
	size, k := uvarint(b[off:])
	_, k2 := uvarint(b[off+k:])
	u := int(binary.BigEndian.Uint16(b[16:])) - int(b[20])
	m := (u-12)*32/255 - 23
	local := m + (int(size)-m)%(u-4)
	if local > u-35 {
		local = m
	}
	require.Less(t, local, int(size), "the record must overflow")
	return off + k + k2 + local
}

// TestSharedOverflowChain: two rows whose overflow pointers name the same
// chain would make a small file cost a read of the chain per row; a page
// used twice in one walk is refused.
func TestSharedOverflowChain(t *testing.T) {
	b := fileOf(t, "CREATE TABLE r(a TEXT); INSERT INTO r VALUES (printf('%.*c', 9000, 'x')), (printf('%.*c', 9000, 'y'));")
	ps := int(binary.BigEndian.Uint16(b[16:]))
	require.NoError(t, readAll(b, nil, Limits{}))
	root := b[ps : 2*ps] // table r is page 2, a leaf with both rows
	require.Equal(t, byte(pageTableLeaf), root[0])
	c0, c1 := int(binary.BigEndian.Uint16(root[8:])), int(binary.BigEndian.Uint16(root[10:]))
	p0, p1 := overflowPointer(t, b, ps+c0), overflowPointer(t, b, ps+c1)
	copy(b[p1:p1+4], b[p0:p0+4])
	err := readAll(b, nil, Limits{})
	require.ErrorIs(t, err, ErrCorrupt)
	require.Contains(t, err.Error(), "already used")
}

// TestHostileWAL: a -wal file is as untrusted as the database: a bad one
// is ignored (SQLite would not use it), a huge one is refused.
func TestHostileWAL(t *testing.T) {
	small := fileOf(t, "CREATE TABLE a(x);")
	ps := int(binary.BigEndian.Uint16(small[16:]))
	hdr := make([]byte, walHeaderSize)
	binary.BigEndian.PutUint32(hdr[0:], walMagicBE)
	binary.BigEndian.PutUint32(hdr[4:], 3007000)
	binary.BigEndian.PutUint32(hdr[8:], uint32(ps))
	s0, s1 := walChecksum(binary.BigEndian, hdr[:24], 0, 0)
	binary.BigEndian.PutUint32(hdr[24:], s0)
	binary.BigEndian.PutUint32(hdr[28:], s1)
	// A valid commit frame for page 1 holding garbage: it is committed, so
	// it is read, and the garbage is a clear error.
	frame := make([]byte, walFrameHeaderSize+ps)
	binary.BigEndian.PutUint32(frame[0:], 1)
	binary.BigEndian.PutUint32(frame[4:], 1)
	for i := walFrameHeaderSize; i < len(frame); i++ {
		frame[i] = 0xee
	}
	f0, f1 := walChecksum(binary.BigEndian, frame[:8], s0, s1)
	f0, f1 = walChecksum(binary.BigEndian, frame[walFrameHeaderSize:], f0, f1)
	binary.BigEndian.PutUint32(frame[16:], f0)
	binary.BigEndian.PutUint32(frame[20:], f1)
	good := append(bytes.Clone(hdr), frame...)

	require.ErrorIs(t, readAll(small, good, Limits{}), ErrCorrupt, "a committed frame is used")
	badSum := bytes.Clone(good)
	badSum[len(badSum)-1] ^= 1
	require.NoError(t, readAll(small, badSum, Limits{}), "a frame failing its checksum is not")
	badSalt := bytes.Clone(good)
	badSalt[walHeaderSize+8] ^= 1
	require.NoError(t, readAll(small, badSalt, Limits{}), "nor one with other salts")
	badHdr := bytes.Clone(good)
	badHdr[24] ^= 1
	require.NoError(t, readAll(small, badHdr, Limits{}), "nor a log whose header fails its checksum")
	require.NoError(t, readAll(small, []byte("short"), Limits{}))
	require.ErrorIs(t, readAll(small, good, Limits{MaxWALBytes: 1024}), ErrTooLarge)
	// A commit frame claiming a database of 2^32-1 pages: pages past the
	// file are errors when read, not allocations.
	huge := bytes.Clone(good)
	binary.BigEndian.PutUint32(huge[walHeaderSize+4:], 0xffffffff)
	f0, f1 = walChecksum(binary.BigEndian, huge[walHeaderSize:walHeaderSize+8], s0, s1)
	f0, f1 = walChecksum(binary.BigEndian, huge[walHeaderSize+walFrameHeaderSize:], f0, f1)
	binary.BigEndian.PutUint32(huge[walHeaderSize+16:], f0)
	binary.BigEndian.PutUint32(huge[walHeaderSize+20:], f1)
	require.ErrorIs(t, readAll(small, huge, Limits{}), ErrCorrupt)
}
