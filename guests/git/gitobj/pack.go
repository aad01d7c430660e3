package gitobj

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// pack is one packfile and its version 2 index, held in memory.
type pack struct {
	name    string // path in fsys of the .pack
	file    io.ReaderAt
	closer  io.Closer
	size    int64
	fanout  [256]uint32
	names   []byte // n*20
	offsets []byte // n*4
	large   []byte // k*8
}

// scanPacks opens every objects/pack/*.idx not yet open; again forces a
// new look (a repack may have replaced them).
func (r *Repo) scanPacks(again bool) error {
	if r.scanned && !again {
		return nil
	}
	dir := path.Join(r.common, "objects", "pack")
	ents, err := fs.ReadDir(r.fsys, dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("list packs: %w", err)
	}
	have := map[string]*pack{}
	for _, p := range r.packs {
		have[p.name] = p
	}
	var packs []*pack
	var total int64
	for _, e := range ents {
		base, ok := strings.CutSuffix(e.Name(), ".idx")
		if !ok {
			continue
		}
		name := dir + "/" + base + ".pack"
		if p := have[name]; p != nil {
			packs = append(packs, p)
			delete(have, name)
			total += int64(len(p.names) + len(p.offsets) + len(p.large))
			continue
		}
		p, err := openPack(r.fsys, dir+"/"+e.Name(), name, r.limits.MaxIndexBytes-total)
		if errors.Is(err, fs.ErrNotExist) {
			continue // being written or removed by a concurrent repack
		}
		if err != nil {
			return err
		}
		total += int64(len(p.names) + len(p.offsets) + len(p.large))
		packs = append(packs, p)
	}
	for _, p := range have {
		_ = p.closer.Close()
	}
	r.packs, r.scanned = packs, true
	return nil
}

// Close releases the open packs.
func (r *Repo) Close() error {
	for _, p := range r.packs {
		_ = p.closer.Close()
	}
	r.packs, r.scanned = nil, false
	return nil
}

// openPack reads the index idxPath (at most budget bytes kept) and opens
// its pack.
func openPack(fsys fs.FS, idxPath, packPath string, budget int64) (*pack, error) {
	st, err := fs.Stat(fsys, idxPath)
	if err != nil {
		return nil, err
	}
	if st.Size() > budget+8+256*4+40 {
		return nil, fmt.Errorf("pack index %s: %w: %d bytes, over what max_index_bytes leaves (%d): raise max_index_bytes (and the memory limit)", idxPath, ErrLimit, st.Size(), budget)
	}
	idx, err := fs.ReadFile(fsys, idxPath)
	if err != nil {
		return nil, err
	}
	p := &pack{name: packPath}
	if err := p.parseIndex(idx); err != nil {
		return nil, fmt.Errorf("pack index %s: %w", idxPath, err)
	}
	f, err := fsys.Open(packPath)
	if err != nil {
		return nil, err
	}
	ra, ok := f.(io.ReaderAt)
	pst, serr := f.Stat()
	if !ok || serr != nil {
		_ = f.Close()
		return nil, fmt.Errorf("pack %s: cannot read at offsets", packPath)
	}
	p.file, p.closer, p.size = ra, f, pst.Size()
	var hdr [12]byte
	if _, err := ra.ReadAt(hdr[:], 0); err != nil || string(hdr[:4]) != "PACK" || binary.BigEndian.Uint32(hdr[4:]) != 2 && binary.BigEndian.Uint32(hdr[4:]) != 3 {
		_ = f.Close()
		return nil, fmt.Errorf("pack %s: %w: not a version 2 or 3 packfile", packPath, ErrCorrupt)
	}
	return p, nil
}

// parseIndex checks and slices a version 2 index.
func (p *pack) parseIndex(b []byte) error {
	if len(b) < 8+256*4 || string(b[:4]) != "\xfftOc" {
		return fmt.Errorf("%w: a version 1 index or not an index: rewrite it with `git index-pack` (git has written version 2 since 1.5.2)", ErrCorrupt)
	}
	if v := binary.BigEndian.Uint32(b[4:]); v != 2 {
		return fmt.Errorf("%w: index version %d, only 2 is read", ErrCorrupt, v)
	}
	prev := uint32(0)
	for i := range 256 {
		p.fanout[i] = binary.BigEndian.Uint32(b[8+4*i:])
		if p.fanout[i] < prev {
			return fmt.Errorf("%w: fanout table decreases", ErrCorrupt)
		}
		prev = p.fanout[i]
	}
	n := int64(p.fanout[255])
	rest := b[8+256*4:]
	if int64(len(rest)) < n*28+40 {
		return fmt.Errorf("%w: index shorter than its %d objects need", ErrCorrupt, n)
	}
	p.names = rest[:n*20]
	p.offsets = rest[n*24 : n*28]
	largeLen := int64(len(rest)) - n*28 - 40
	if largeLen%8 != 0 {
		return fmt.Errorf("%w: index has a partial large offset", ErrCorrupt)
	}
	p.large = rest[n*28 : n*28+largeLen]
	return nil
}

// find returns the pack offset of id.
func (p *pack) find(id ID) (int64, bool) {
	lo := 0
	if id[0] > 0 {
		lo = int(p.fanout[id[0]-1])
	}
	hi := int(p.fanout[id[0]])
	i := lo + sort.Search(hi-lo, func(i int) bool { return bytes.Compare(p.names[(lo+i)*20:(lo+i)*20+20], id[:]) >= 0 })
	if i >= hi || !bytes.Equal(p.names[i*20:i*20+20], id[:]) {
		return 0, false
	}
	off := binary.BigEndian.Uint32(p.offsets[i*4:])
	if off&0x80000000 == 0 {
		return int64(off), true
	}
	k := int(off &^ 0x80000000)
	if (k+1)*8 > len(p.large) {
		return -1, true // corrupt: readPacked refuses the offset
	}
	return int64(binary.BigEndian.Uint64(p.large[k*8:])), true
}

// readPacked reads the object at off, applying deltas.
func (r *Repo) readPacked(p *pack, off int64, depth int) (*Object, error) {
	if obj := r.cache.get(cacheKey{p: p, off: off}); obj != nil {
		return obj, nil
	}
	if depth > r.limits.MaxDeltaDepth {
		return nil, fmt.Errorf("pack %s offset %d: %w: delta chain deeper than %d (a loop, or a pack made with a larger --depth: raise max_delta_depth)", p.name, off, ErrLimit, r.limits.MaxDeltaDepth)
	}
	if off < 12 || off >= p.size-20 {
		return nil, fmt.Errorf("pack %s: %w: object offset %d outside the pack", p.name, ErrCorrupt, off)
	}
	br := r.bufReader(io.NewSectionReader(p.file, off, p.size-20-off))
	typ, size, err := entryHeader(br)
	if err != nil {
		return nil, fmt.Errorf("pack %s offset %d: %w", p.name, off, err)
	}
	var baseOff int64 = -1
	var baseID ID
	switch typ {
	case TypeCommit, TypeTree, TypeBlob, TypeTag:
	case typeOfs:
		rel, err := ofsDistance(br)
		if err != nil || rel <= 0 || rel > off {
			return nil, fmt.Errorf("pack %s offset %d: %w: delta base offset out of range", p.name, off, ErrCorrupt)
		}
		baseOff = off - rel
	case typeRef:
		if _, err := io.ReadFull(br, baseID[:]); err != nil {
			return nil, fmt.Errorf("pack %s offset %d: %w: truncated delta base", p.name, off, ErrCorrupt)
		}
	default:
		return nil, fmt.Errorf("pack %s offset %d: %w: object type %d", p.name, off, ErrCorrupt, typ)
	}
	// A delta's own size is bounded too: a delta can never usefully be
	// much larger than what it produces.
	if size > r.limits.MaxObjectBytes+64 {
		return nil, fmt.Errorf("pack %s offset %d: %w: %d bytes, over max_object_bytes (%d): raise max_object_bytes (and the memory limit) to read it", p.name, off, ErrLimit, size, r.limits.MaxObjectBytes)
	}
	// This entry's bytes are inflated before its base is read: the reader
	// and inflater are reused, and reading the base reuses them again.
	data, err := r.inflate(br, size)
	if err != nil {
		return nil, fmt.Errorf("pack %s offset %d: %w", p.name, off, err)
	}
	obj := &Object{Type: typ, Data: data}
	if typ == typeOfs || typ == typeRef {
		var base *Object
		if typ == typeOfs {
			base, err = r.readPacked(p, baseOff, depth+1)
		} else {
			base, err = r.read(baseID, depth+1)
		}
		if err != nil {
			return nil, err
		}
		out, err := applyDelta(base.Data, data, r.limits.MaxObjectBytes)
		if err != nil {
			return nil, fmt.Errorf("pack %s offset %d: %w", p.name, off, err)
		}
		obj = &Object{Type: base.Type, Data: out}
	}
	r.cache.put(cacheKey{p: p, off: off}, obj)
	return obj, nil
}

// bufReader returns the Repo's buffered reader, reset to read rd.
func (r *Repo) bufReader(rd io.Reader) *bufio.Reader {
	if r.br == nil {
		r.br = bufio.NewReaderSize(rd, 4096)
	} else {
		r.br.Reset(rd)
	}
	return r.br
}

// inflate reads exactly size inflated bytes from the zlib stream in rd,
// reusing one inflater: making one allocates and clears tens of KiB,
// which in wasm costs more than inflating a small object.
func (r *Repo) inflate(rd io.Reader, size int64) ([]byte, error) {
	if err := r.startInflate(rd); err != nil {
		return nil, err
	}
	return readAllBounded(r.zr, make([]byte, 0, size), size)
}

// startInflate points the reused inflater (r.zr) at a new zlib stream.
func (r *Repo) startInflate(rd io.Reader) error {
	if r.zr == nil {
		zr, err := zlib.NewReader(rd)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		r.zr = zr
		return nil
	}
	if err := r.zr.(zlib.Resetter).Reset(rd, nil); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return nil
}

// entryHeader reads a pack entry's type and inflated size.
func entryHeader(br io.ByteReader) (Type, int64, error) {
	c, err := br.ReadByte()
	if err != nil {
		return 0, 0, fmt.Errorf("%w: truncated entry", ErrCorrupt)
	}
	typ := Type(c >> 4 & 7)
	size := int64(c & 15)
	shift := uint(4)
	for c&0x80 != 0 {
		if c, err = br.ReadByte(); err != nil || shift > 56 {
			return 0, 0, fmt.Errorf("%w: bad entry size", ErrCorrupt)
		}
		size |= int64(c&0x7f) << shift
		shift += 7
	}
	if size < 0 {
		return 0, 0, fmt.Errorf("%w: bad entry size", ErrCorrupt)
	}
	return typ, size, nil
}

// ofsDistance reads an OFS_DELTA's backwards distance.
func ofsDistance(br io.ByteReader) (int64, error) {
	c, err := br.ReadByte()
	if err != nil {
		return 0, err
	}
	d := int64(c & 0x7f)
	for n := 0; c&0x80 != 0; n++ {
		if c, err = br.ReadByte(); err != nil || n > 8 {
			return 0, fmt.Errorf("%w: bad delta offset", ErrCorrupt)
		}
		d = (d+1)<<7 | int64(c&0x7f)
	}
	return d, nil
}
