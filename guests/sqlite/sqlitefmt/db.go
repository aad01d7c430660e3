package sqlitefmt

import (
	"errors"
	"fmt"
	"io"
)

// DB is an open database: its header, and where each page is (in the
// database file, or in a committed WAL frame). It holds no lock: see
// Snapshot for reading while another process writes.
type DB struct {
	Header Header
	// WALFrames is the number of committed frames read from the -wal file.
	WALFrames int
	// Stamp is what Snapshot compared before and after the read (see
	// Stamp); nil outside a Snapshot.
	Stamp []byte

	file   io.ReaderAt
	size   int64
	log    io.ReaderAt
	wal    *wal
	pages  uint32
	usable int
	lim    Limits
}

// Open reads the header of the database file (size bytes) and, when log is
// not nil, the committed frames of its -wal file (logSize bytes).
func Open(file io.ReaderAt, size int64, log io.ReaderAt, logSize int64, lim Limits) (*DB, error) {
	lim = lim.withDefaults()
	if size == 0 && logSize < walHeaderSize {
		return &DB{Header: Header{PageSize: 4096, TextEncoding: EncodingUTF8}, file: file, lim: lim, wal: &wal{}}, nil
	}
	var hb [HeaderSize]byte
	n, err := file.ReadAt(hb[:], 0)
	if err != nil && !(errors.Is(err, io.EOF) && n == HeaderSize) {
		if errors.Is(err, io.EOF) {
			if n >= len(magic) && !IsDatabase(hb[:n]) || n < len(magic) && n > 0 {
				return nil, fmt.Errorf("read header: %w", ErrNotSQLite)
			}
			return nil, fmt.Errorf("read header: %w: file is %d bytes, shorter than the 100-byte header", ErrCorrupt, n)
		}
		return nil, fmt.Errorf("read header: %w", err)
	}
	h, err := ParseHeader(hb[:])
	if err != nil {
		return nil, err
	}
	d := &DB{Header: h, file: file, size: size, usable: h.PageSize - h.Reserved, lim: lim}
	d.wal, err = readWAL(log, logSize, h.PageSize, lim)
	if err != nil {
		return nil, err
	}
	d.log, d.WALFrames = log, d.wal.nFrames
	switch {
	case d.wal.dbPages != 0:
		d.pages = d.wal.dbPages
	case h.InHeaderSizeValid():
		d.pages = h.PageCount
	default:
		d.pages = uint32(min(size/int64(h.PageSize), 1<<32-1))
	}
	if d.wal.dbPages == 0 && int64(d.pages)*int64(h.PageSize) > size {
		return nil, fmt.Errorf("read header: %w: the header says %d pages of %d bytes but the file is %d bytes (truncated?)", ErrCorrupt, d.pages, h.PageSize, size)
	}
	if d.pages == 0 {
		d.pages = 1 // an empty file made by sqlite3 before its first write
	}
	return d, nil
}

// PageCount is the size of the database in pages.
func (d *DB) PageCount() uint32 { return d.pages }

// page reads page n (1-based) into a new buffer, from the WAL when a
// committed frame holds it.
func (d *DB) page(n uint32) ([]byte, error) {
	if n == 0 || n > d.pages {
		return nil, fmt.Errorf("%w: page %d is outside the database's %d pages", ErrCorrupt, n, d.pages)
	}
	buf := make([]byte, d.Header.PageSize)
	var err error
	if off, ok := d.wal.frames[n]; ok {
		_, err = d.log.ReadAt(buf, off)
	} else {
		off := int64(n-1) * int64(d.Header.PageSize)
		if off+int64(len(buf)) > d.size {
			return nil, fmt.Errorf("%w: page %d lies past the end of the %d-byte file (truncated?)", ErrCorrupt, n, d.size)
		}
		_, err = d.file.ReadAt(buf, off)
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: page %d is cut short (truncated?)", ErrCorrupt, n)
		}
		return nil, fmt.Errorf("read page %d: %w", n, err)
	}
	return buf, nil
}
