package sqlitefmt

import (
	"encoding/binary"
	"fmt"
)

// HeaderSize is the size of the database header at the start of page 1.
const HeaderSize = 100

const magic = "SQLite format 3\x00"

// Text encodings, as the header stores them.
const (
	EncodingUTF8    = 1
	EncodingUTF16LE = 2
	EncodingUTF16BE = 3
)

// Header is the part of the 100-byte database header a reader needs.
type Header struct {
	PageSize        int    // 512 to 65536, a power of two
	WriteVersion    uint8  // 1 legacy (rollback journal), 2 WAL
	ReadVersion     uint8  // 1 legacy, 2 WAL
	Reserved        int    // bytes reserved at the end of each page
	ChangeCounter   uint32 // incremented by each transaction in rollback mode
	PageCount       uint32 // size in pages, when valid (see InHeaderSizeValid)
	SchemaCookie    uint32 // incremented by each schema change
	SchemaFormat    uint32 // 1 to 4
	TextEncoding    uint32 // EncodingUTF8, EncodingUTF16LE or EncodingUTF16BE
	UserVersion     uint32
	ApplicationID   uint32
	VersionValidFor uint32
	SQLiteVersion   uint32 // SQLITE_VERSION_NUMBER of the last writer
}

// IsDatabase reports whether b starts with the SQLite header string.
func IsDatabase(b []byte) bool { return len(b) >= len(magic) && string(b[:len(magic)]) == magic }

// ParseHeader decodes and checks the database header.
func ParseHeader(b []byte) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, fmt.Errorf("read header: %w: file is %d bytes, shorter than the 100-byte header", ErrCorrupt, len(b))
	}
	if !IsDatabase(b) {
		return Header{}, fmt.Errorf("read header: %w", ErrNotSQLite)
	}
	u32 := func(off int) uint32 { return binary.BigEndian.Uint32(b[off:]) }
	h := Header{
		PageSize:        int(binary.BigEndian.Uint16(b[16:])),
		WriteVersion:    b[18],
		ReadVersion:     b[19],
		Reserved:        int(b[20]),
		ChangeCounter:   u32(24),
		PageCount:       u32(28),
		SchemaCookie:    u32(40),
		SchemaFormat:    u32(44),
		TextEncoding:    u32(56),
		UserVersion:     u32(60),
		ApplicationID:   u32(68),
		VersionValidFor: u32(92),
		SQLiteVersion:   u32(96),
	}
	if h.PageSize == 1 {
		h.PageSize = 65536
	}
	if h.PageSize < 512 || h.PageSize > 65536 || h.PageSize&(h.PageSize-1) != 0 {
		return Header{}, fmt.Errorf("read header: %w: page size %d is not a power of two from 512 to 65536", ErrCorrupt, h.PageSize)
	}
	if h.ReadVersion > 2 {
		return Header{}, fmt.Errorf("read header: %w: read format version %d is newer than this reader knows (1 and 2)", ErrCorrupt, h.ReadVersion)
	}
	if h.PageSize-h.Reserved < 480 {
		return Header{}, fmt.Errorf("read header: %w: %d reserved bytes leave fewer than 480 usable bytes a page", ErrCorrupt, h.Reserved)
	}
	if h.TextEncoding == 0 { // an empty database has not chosen yet
		h.TextEncoding = EncodingUTF8
	}
	if h.TextEncoding > 3 {
		return Header{}, fmt.Errorf("read header: %w: text encoding %d is not 1, 2 or 3", ErrCorrupt, h.TextEncoding)
	}
	return h, nil
}

// InHeaderSizeValid reports whether PageCount can be trusted: SQLite
// writes it only when the version-valid-for number matches the change
// counter, and older writers left it stale.
func (h Header) InHeaderSizeValid() bool {
	return h.PageCount != 0 && h.VersionValidFor == h.ChangeCounter
}

// EncodingName is the name PRAGMA encoding reports.
func (h Header) EncodingName() string {
	switch h.TextEncoding {
	case EncodingUTF16LE:
		return "UTF-16le"
	case EncodingUTF16BE:
		return "UTF-16be"
	}
	return "UTF-8"
}

// JournalMode is "wal" when the header says the database is in WAL mode,
// else "rollback".
func (h Header) JournalMode() string {
	if h.ReadVersion == 2 || h.WriteVersion == 2 {
		return "wal"
	}
	return "rollback"
}
