package sqlitefmt

import (
	"encoding/binary"
	"fmt"
)

// Page types of table b-trees.
const (
	pageTableInterior = 5
	pageTableLeaf     = 13
	pageIndexInterior = 2
	pageIndexLeaf     = 10
	// maxDepth is deeper than any real b-tree: SQLite's own bound is 20.
	maxDepth = 40
)

// errStop ends a walk early without an error.
var errStop = fmt.Errorf("stop")

// cellFunc receives one table leaf cell: its rowid and its whole payload.
type cellFunc func(rowid int64, payload []byte) error

// walkTable visits every row of the table b-tree rooted at root in rowid
// order. A page reached twice, a tree deeper than maxDepth, or a page of
// another kind is ErrCorrupt; fn returning errStop ends the walk cleanly.
func (d *DB) walkTable(root uint32, fn cellFunc) error {
	seen := map[uint32]bool{}
	err := d.walkPage(root, 0, seen, fn)
	if err == errStop {
		return nil
	}
	return err
}

func (d *DB) walkPage(n uint32, depth int, seen map[uint32]bool, fn cellFunc) error {
	if depth > maxDepth {
		return fmt.Errorf("%w: b-tree deeper than %d pages at page %d", ErrCorrupt, maxDepth, n)
	}
	if seen[n] {
		return fmt.Errorf("%w: page %d is reached twice in one b-tree (a loop)", ErrCorrupt, n)
	}
	seen[n] = true
	p, err := d.page(n)
	if err != nil {
		return err
	}
	hdr := 0
	if n == 1 {
		hdr = HeaderSize
	}
	if hdr+8 > len(p) {
		return fmt.Errorf("%w: page %d has no room for its header", ErrCorrupt, n)
	}
	kind := p[hdr]
	cells := int(binary.BigEndian.Uint16(p[hdr+3:]))
	ptrs := hdr + 8
	if kind == pageTableInterior {
		ptrs = hdr + 12
	}
	if ptrs+2*cells > d.usable {
		return fmt.Errorf("%w: page %d claims %d cells, more than fit", ErrCorrupt, n, cells)
	}
	switch kind {
	case pageTableLeaf:
		for i := range cells {
			off := int(binary.BigEndian.Uint16(p[ptrs+2*i:]))
			rowid, payload, err := d.leafCell(p, n, off, ptrs+2*cells, seen)
			if err != nil {
				return err
			}
			if err := fn(rowid, payload); err != nil {
				return err
			}
		}
		return nil
	case pageTableInterior:
		for i := range cells {
			off := int(binary.BigEndian.Uint16(p[ptrs+2*i:]))
			if off < ptrs+2*cells || off+4 > d.usable {
				return fmt.Errorf("%w: page %d cell %d at offset %d is outside the cell area", ErrCorrupt, n, i, off)
			}
			if err := d.walkPage(binary.BigEndian.Uint32(p[off:]), depth+1, seen, fn); err != nil {
				return err
			}
		}
		return d.walkPage(binary.BigEndian.Uint32(p[hdr+8:]), depth+1, seen, fn)
	case pageIndexInterior, pageIndexLeaf:
		return fmt.Errorf("%w: page %d is an index page where a table page belongs (a WITHOUT ROWID table?)", ErrCorrupt, n)
	}
	return fmt.Errorf("%w: page %d has page type %d, not a b-tree page", ErrCorrupt, n, kind)
}

// leafCell decodes the table leaf cell at off of page n: its rowid and its
// payload, overflow included.
func (d *DB) leafCell(p []byte, n uint32, off, lo int, seen map[uint32]bool) (int64, []byte, error) {
	if off < lo || off >= d.usable {
		return 0, nil, fmt.Errorf("%w: page %d has a cell at offset %d, outside the page", ErrCorrupt, n, off)
	}
	size, k := uvarint(p[off:d.usable])
	if k == 0 {
		return 0, nil, fmt.Errorf("%w: page %d: a cell's payload size is cut off", ErrCorrupt, n)
	}
	off += k
	rowid, k := uvarint(p[off:d.usable])
	if k == 0 {
		return 0, nil, fmt.Errorf("%w: page %d: a cell's rowid is cut off", ErrCorrupt, n)
	}
	off += k
	if size > uint64(d.lim.MaxPayload) {
		return 0, nil, fmt.Errorf("%w: a record on page %d is %d bytes, over the %d-byte limit", ErrTooLarge, n, size, d.lim.MaxPayload)
	}
	payload, err := d.payload(p, n, off, int(size), seen)
	return int64(rowid), payload, err
}

// payload assembles a table leaf cell's payload of size bytes starting at
// off: the local part, then the overflow chain. The chain is followed for
// exactly as many pages as the size needs. seen holds every page the walk
// has used, b-tree and overflow alike: in a sound file each page belongs
// to one place, so a page met twice is a loop or a chain that two cells
// share, which would let a small file make the reader read it over and
// over.
func (d *DB) payload(p []byte, n uint32, off, size int, seen map[uint32]bool) ([]byte, error) {
	u := d.usable
	local := size
	if x := u - 35; size > x {
		m := (u-12)*32/255 - 23
		local = m + (size-m)%(u-4)
		if local > x {
			local = m
		}
	}
	if off+local > u || (local < size && off+local+4 > u) {
		return nil, fmt.Errorf("%w: page %d: a cell runs past the end of the page", ErrCorrupt, n)
	}
	if local == size {
		return p[off : off+local : off+local], nil // pages are not reused: no copy
	}
	// Grown as pages arrive, not sized from the claim: a page of cells
	// each claiming megabytes must not cost megabytes each.
	out := make([]byte, 0, min(size, local+u))
	out = append(out, p[off:off+local]...)
	next := binary.BigEndian.Uint32(p[off+local:])
	for len(out) < size {
		if seen[next] {
			return nil, fmt.Errorf("%w: the overflow chain from page %d reaches page %d, which is already used (a loop)", ErrCorrupt, n, next)
		}
		seen[next] = true
		op, err := d.page(next)
		if err != nil {
			return nil, fmt.Errorf("overflow chain from page %d: %w", n, err)
		}
		take := min(size-len(out), u-4)
		out = append(out, op[4:4+take]...)
		next = binary.BigEndian.Uint32(op)
	}
	return out, nil
}

// uvarint decodes SQLite's big-endian varint (1 to 9 bytes; the ninth
// contributes all 8 bits). It returns 0 bytes read when b is too short.
func uvarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < 9; i++ {
		if i >= len(b) {
			return 0, 0
		}
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return v, 9
}
