package sqlitefmt

import (
	"encoding/binary"
	"fmt"
	"io"
)

const (
	walHeaderSize      = 32
	walFrameHeaderSize = 24
	walMagicLE         = 0x377f0682
	walMagicBE         = 0x377f0683
)

// wal is the committed content of a write-ahead log: for each page the
// offset of its newest committed frame's data, and the database size in
// pages after the last commit.
type wal struct {
	frames  map[uint32]int64
	dbPages uint32
	salt1   uint32
	salt2   uint32
	ckptSeq uint32
	nFrames int // committed frames
}

// readWAL reads the -wal file r of size bytes for a database of pageSize.
// A missing, empty or foreign log (bad magic, page size or header
// checksum) has no frames, as SQLite treats it; frames are read up to the
// first one whose salts or running checksum do not match, and only those
// up to the last commit frame count.
func readWAL(r io.ReaderAt, size int64, pageSize int, lim Limits) (*wal, error) {
	w := &wal{frames: map[uint32]int64{}}
	if r == nil || size < walHeaderSize {
		return w, nil
	}
	if size > lim.MaxWALBytes {
		return nil, fmt.Errorf("read wal: %w: the -wal file is %d bytes, over %d: checkpoint the database (PRAGMA wal_checkpoint) or raise the limit", ErrTooLarge, size, lim.MaxWALBytes)
	}
	var hdr [walHeaderSize]byte
	if _, err := r.ReadAt(hdr[:], 0); err != nil {
		return nil, fmt.Errorf("read wal header: %w", err)
	}
	mg := binary.BigEndian.Uint32(hdr[0:])
	if mg != walMagicLE && mg != walMagicBE {
		return w, nil
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if mg == walMagicBE {
		order = binary.BigEndian
	}
	if int(binary.BigEndian.Uint32(hdr[8:])) != pageSize || binary.BigEndian.Uint32(hdr[4:]) != 3007000 {
		return w, nil
	}
	s0, s1 := walChecksum(order, hdr[:24], 0, 0)
	if s0 != binary.BigEndian.Uint32(hdr[24:]) || s1 != binary.BigEndian.Uint32(hdr[28:]) {
		return w, nil
	}
	w.ckptSeq = binary.BigEndian.Uint32(hdr[12:])
	w.salt1, w.salt2 = binary.BigEndian.Uint32(hdr[16:]), binary.BigEndian.Uint32(hdr[20:])
	frameSize := int64(walFrameHeaderSize + pageSize)
	buf := make([]byte, frameSize)
	pending := map[uint32]int64{}
	for off := int64(walHeaderSize); off+frameSize <= size; off += frameSize {
		if _, err := r.ReadAt(buf, off); err != nil {
			break // the log was truncated under us: what was committed before stands
		}
		pgno, commit := binary.BigEndian.Uint32(buf[0:]), binary.BigEndian.Uint32(buf[4:])
		if pgno == 0 || binary.BigEndian.Uint32(buf[8:]) != w.salt1 || binary.BigEndian.Uint32(buf[12:]) != w.salt2 {
			break
		}
		s0, s1 = walChecksum(order, buf[:8], s0, s1)
		s0, s1 = walChecksum(order, buf[walFrameHeaderSize:], s0, s1)
		if s0 != binary.BigEndian.Uint32(buf[16:]) || s1 != binary.BigEndian.Uint32(buf[20:]) {
			break
		}
		pending[pgno] = off + walFrameHeaderSize
		if commit != 0 {
			for p, o := range pending {
				w.frames[p] = o
			}
			clear(pending)
			w.dbPages = commit
			w.nFrames = int((off-walHeaderSize)/frameSize) + 1
		}
	}
	return w, nil
}

// walChecksum is the WAL's running checksum over b (a multiple of 8 bytes),
// reading 32-bit words in the log's byte order.
func walChecksum(order binary.ByteOrder, b []byte, s0, s1 uint32) (uint32, uint32) {
	for i := 0; i+8 <= len(b); i += 8 {
		s0 += order.Uint32(b[i:]) + s1
		s1 += order.Uint32(b[i+4:]) + s0
	}
	return s0, s1
}
