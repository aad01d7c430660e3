package wasmbin

import (
	"cmp"
	"slices"
)

// Data segments, coalesced. Go's linker writes a module's initialized
// data as one segment per run of non-zero bytes: a Go guest of 3.8 MB
// carries 43,000 segments of 25 bytes on average, 18 zero bytes apart.
// wazero keeps every segment of a loaded module as its own allocation with
// its own offset expression (about 100 bytes of heap beside its data), and
// every instance a slice header per segment: some 4 MiB of heap for 1 MiB
// of data. Instrument writes such a module's segments back as a few long
// ones, the short zero runs between them filled in, which is what memory
// holds there anyway.
//
// Only when nothing can tell the difference:
//   - every segment is active, for memory 0, at an i32.const offset (no
//     global.get: an imported offset is unknown until instantiation);
//   - no data count section, so no memory.init or data.drop can name a
//     segment by its index (validation requires the section for both);
//   - no two segments overlap, so the order they are written in does not
//     matter and a gap holds only zeros. A module whose segments overlap
//     keeps them as they are.
//
// A segment out of memory's bounds still fails instantiation: the merged
// segment that holds it ends at or past where it ended. That holds for an
// empty segment too (which traps when its offset is past the end), since
// a run's end is at least the offset of every segment in it.

// maxDataGap is the longest run of zeros a merged segment fills in: less
// than what wazero spends on a segment of its own.
const maxDataGap = 64

type dataSegment struct {
	off  uint64
	init []byte
}

// coalescedData returns the data section with its segments merged, or
// the section as it was when merging could be told apart or gains nothing.
func (m *Module) coalescedData() []byte {
	if m.DataCount != nil {
		return m.Data
	}
	segs, ok := activeSegments(m.Data)
	if !ok || len(segs) < 2 {
		return m.Data
	}
	slices.SortStableFunc(segs, func(a, b dataSegment) int {
		return cmp.Or(cmp.Compare(a.off, b.off), cmp.Compare(len(a.init), len(b.init)))
	})
	for i := 1; i < len(segs); i++ {
		if segs[i-1].off+uint64(len(segs[i-1].init)) > segs[i].off {
			return m.Data // overlapping: the order of writes matters
		}
	}
	var merged []dataSegment
	for _, s := range segs {
		if n := len(merged); n > 0 {
			last := &merged[n-1]
			if end := last.off + uint64(len(last.init)); s.off-end <= maxDataGap {
				last.init = append(append(last.init, make([]byte, s.off-end)...), s.init...)
				continue
			}
		}
		merged = append(merged, dataSegment{off: s.off, init: append([]byte(nil), s.init...)})
	}
	if len(merged) == len(segs) {
		return m.Data
	}
	out := appendU32(nil, uint32(len(merged)))
	for _, s := range merged {
		out = append(out, 0, opI32Const)
		out = appendS64(out, int64(int32(uint32(s.off))))
		out = append(out, opEnd)
		out = appendU32(out, uint32(len(s.init)))
		out = append(out, s.init...)
	}
	return out
}

// activeSegments reads a data section (already checked by Parse) whose
// segments are all active for memory 0 at an i32.const offset; false for
// any other.
func activeSegments(data []byte) ([]dataSegment, bool) {
	r := &reader{b: data}
	n, err := r.u32()
	if err != nil {
		return nil, false
	}
	segs := make([]dataSegment, 0, n)
	for range n {
		flags, err := r.u32()
		if err != nil || flags != 0 {
			return nil, false
		}
		expr, err := constExpr(r)
		if err != nil || len(expr) < 2 || expr[0] != opI32Const {
			return nil, false
		}
		off, err := (&reader{b: expr[1 : len(expr)-1]}).signed(32)
		if err != nil {
			return nil, false
		}
		size, err := r.u32()
		if err != nil {
			return nil, false
		}
		init, err := r.bytes(uint64(size))
		if err != nil {
			return nil, false
		}
		segs = append(segs, dataSegment{off: uint64(uint32(int32(off))), init: init})
	}
	return segs, r.len() == 0
}
