package wasmbin

// Bounded leaves. Most calls in real code go to small functions without
// loops (accessors, helpers, a libc's strlen): checking at their entry and
// again at every return point would cost two checkpoints per call for code
// that can only ever run a few hundred instructions. A function is a
// bounded leaf when it has no loop and no call_indirect, calls only imports
// and other bounded leaves (so no recursion), and no path through it, its
// callees included, is longer than MaxLeafCost instructions. A call of a
// bounded leaf is charged by its caller, as that many instructions of the
// caller's own run, and needs no checkpoint at its return point; the leaf
// itself has none at its entry. A call_indirect may reach a leaf too (Go
// puts every function in its table): it is charged MaxLeafCost beyond
// itself, and keeps its return-point checkpoint, since it may as well reach
// a function that is not a leaf (which checks at its own entry). The host
// may call a leaf export, which then runs at most MaxLeafCost instructions.
//
// The bound between two checks becomes Budget + MaxSegment + MaxLeafCost.

// MaxLeafCost bounds the cost of a bounded leaf, in instructions.
const MaxLeafCost = 512

// leaves is the analysis: per defined function, its cost when it is a
// bounded leaf, else -1.
type leaves struct {
	cost []int64
	nImp uint32
}

// unchecked reports whether defined function i needs no entry checkpoint.
func (l *leaves) unchecked(i int) bool { return l.cost[i] >= 0 }

// callCost is the cost a caller charges for a direct call of callee, and
// whether the call needs a checkpoint at its return point.
func (ix *instrumenter) callCost(callee uint32) (int64, bool) {
	if callee < ix.leaves.nImp {
		return 1, false // a host function returns without running guest code
	}
	if c := ix.leaves.cost[callee-ix.leaves.nImp]; c >= 0 {
		return 1 + c, false
	}
	return 1, true
}

// findLeaves computes the bounded leaves of m.
func (ix *instrumenter) findLeaves() error {
	m := ix.m
	n := len(m.Codes)
	l := &ix.leaves
	l.nImp = m.NumImportedFuncs
	l.cost = make([]int64, n)
	const (
		unknown = iota
		visiting
		done
	)
	state := make([]uint8, n)
	var visit func(i, depth int) error
	visit = func(i, depth int) error {
		switch state[i] {
		case done:
			return nil
		case visiting: // a recursion: not a leaf
			l.cost[i] = -1
			return nil
		}
		state[i] = visiting
		defer func() { state[i] = done }()
		l.cost[i] = -1
		if depth > MaxLeafCost || len(m.Codes[i].Body) > 8*MaxLeafCost {
			return nil
		}
		var info bodyInfo
		if err := m.decodeBody(i, &info, nil); err != nil {
			return err
		}
		for _, in := range info.insts {
			switch {
			case in.kind == kLoop || in.kind == kCallIndirect:
				return nil
			case in.kind == kCall && in.imm >= l.nImp:
				g := int(in.imm - l.nImp)
				if err := visit(g, depth+1); err != nil {
					return err
				}
				if state[g] == visiting || l.cost[g] < 0 {
					return nil
				}
			}
		}
		var f flow
		if err := f.structure(&info); err != nil {
			return err
		}
		site, dist := f.weights(ix.callCost, false)
		for _, s := range site {
			if s {
				return nil // a run long enough to be split
			}
		}
		if dist[0] <= MaxLeafCost {
			l.cost[i] = dist[0]
		}
		return nil
	}
	for i := range n {
		if err := visit(i, 0); err != nil {
			return err
		}
	}
	return nil
}
