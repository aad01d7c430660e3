package gitobj

import "fmt"

// applyDelta applies a git delta to base. The result's declared size is
// checked against max before anything is allocated, and every copy against
// the base and the declared size.
func applyDelta(base, delta []byte, max int64) ([]byte, error) {
	src, delta, ok := deltaVarint(delta)
	if !ok || src != int64(len(base)) {
		return nil, fmt.Errorf("%w: delta's base size %d is not its base's %d", ErrCorrupt, src, len(base))
	}
	dst, delta, ok := deltaVarint(delta)
	if !ok {
		return nil, fmt.Errorf("%w: bad delta result size", ErrCorrupt)
	}
	if dst > max {
		return nil, fmt.Errorf("%w: a delta makes %d bytes, over max_object_bytes (%d): raise max_object_bytes (and the memory limit) to read it", ErrLimit, dst, max)
	}
	out := make([]byte, 0, dst)
	for len(delta) > 0 {
		op := delta[0]
		delta = delta[1:]
		if op&0x80 == 0 { // insert op bytes
			n := int(op)
			if n == 0 || n > len(delta) || int64(len(out)+n) > dst {
				return nil, fmt.Errorf("%w: bad delta insert", ErrCorrupt)
			}
			out = append(out, delta[:n]...)
			delta = delta[n:]
			continue
		}
		var off, size int64
		for i := range 4 {
			if op&(1<<i) != 0 {
				if len(delta) == 0 {
					return nil, fmt.Errorf("%w: truncated delta copy", ErrCorrupt)
				}
				off |= int64(delta[0]) << (8 * i)
				delta = delta[1:]
			}
		}
		for i := range 3 {
			if op&(0x10<<i) != 0 {
				if len(delta) == 0 {
					return nil, fmt.Errorf("%w: truncated delta copy", ErrCorrupt)
				}
				size |= int64(delta[0]) << (8 * i)
				delta = delta[1:]
			}
		}
		if size == 0 {
			size = 0x10000
		}
		if off+size > int64(len(base)) || int64(len(out))+size > dst {
			return nil, fmt.Errorf("%w: delta copy out of range", ErrCorrupt)
		}
		out = append(out, base[off:off+size]...)
	}
	if int64(len(out)) != dst {
		return nil, fmt.Errorf("%w: delta made %d bytes, it declared %d", ErrCorrupt, len(out), dst)
	}
	return out, nil
}

func deltaVarint(b []byte) (int64, []byte, bool) {
	var v int64
	for i := 0; i < len(b) && i < 9; i++ {
		v |= int64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return v, b[i+1:], true
		}
	}
	return 0, nil, false
}
