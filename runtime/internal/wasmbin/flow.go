package wasmbin

import (
	"fmt"
	"math"
)

// frame is one block, loop or if of a function body (or the body itself).
type frame struct {
	kind       kind  // kBlock, kLoop, kIf; kBlock for the function's own frame
	start      int32 // index of its block/loop/if instruction (-1 for the function)
	elseAt     int32 // index of its else, or -1
	end        int32 // index of its end
	hasElse    bool
	isFunction bool
}

// flow is the control structure of one body.
type flow struct {
	insts  []inst
	labels []uint32 // br_table labels, rewritten to frame ids
	frames []frame
	// target is, for br and br_if, the frame they leave; for block, loop,
	// if and else, the frame they open or continue.
	target []int32
	// scratch reused from function to function
	stack []int32
	dist  []int64
	site  []bool
}

// structure matches blocks with their ends and resolves every branch
// label to the frame it targets. It reuses f's slices.
func (f *flow) structure(info *bodyInfo) error {
	f.insts, f.labels = info.insts, info.labels
	f.target = grow(f.target, len(info.insts))
	f.frames = append(f.frames[:0], frame{kind: kBlock, start: -1, elseAt: -1, end: int32(len(info.insts) - 1), isFunction: true})
	stack := append(f.stack[:0], 0)
	defer func() { f.stack = stack }()
	for i, in := range f.insts {
		switch in.kind {
		case kBlock, kLoop, kIf:
			f.frames = append(f.frames, frame{kind: in.kind, start: int32(i), elseAt: -1})
			stack = append(stack, int32(len(f.frames)-1))
			f.target[i] = int32(len(f.frames) - 1)
		case kElse:
			id := stack[len(stack)-1]
			top := &f.frames[id]
			if top.kind != kIf || top.hasElse {
				return fmt.Errorf("else at offset %d without its if", in.off)
			}
			top.elseAt, top.hasElse = int32(i), true
			f.target[i] = id
		case kEnd:
			id := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if !f.frames[id].isFunction {
				f.frames[id].end = int32(i)
			}
		case kBr, kBrIf:
			f.target[i] = stack[len(stack)-1-int(in.imm)] // depth checked by decodeBody
		case kBrTable:
			for j := in.imm; j < in.imm+in.n; j++ {
				f.labels[j] = uint32(stack[len(stack)-1-int(f.labels[j])])
			}
		}
	}
	return nil
}

// grow returns s resized to n, zeroed, reusing its array when it can.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// branchTarget is the position a branch to frame id lands on: the start of
// a loop's body, or just past any other frame's end.
func (f *flow) branchTarget(id int32) int32 {
	fr := f.frames[id]
	if fr.kind == kLoop {
		return fr.start + 1
	}
	return fr.end + 1
}

// weights computes, for every position p (before instruction p), whether
// a checkpoint goes there and the weight it charges: the most instructions
// any path can run from p before it reaches the next checkpoint. nImp is the
// number of imported functions (calls to them return without running guest
// code). entry puts a checkpoint at the function's entry.
func (f *flow) weights(callCost func(callee uint32) (cost int64, checked bool), entry bool) (site []bool, dist []int64) {
	n := len(f.insts)
	f.dist, f.site = grow(f.dist, n+1), grow(f.site, n+1)
	dist, site = f.dist, f.site
	at := func(p int32) int64 {
		if site[p] {
			return 0
		}
		return dist[p]
	}
	for i := n - 1; i >= 0; i-- {
		in := f.insts[i]
		var cost, next int64
		switch in.kind {
		case kBlock:
			next = at(int32(i + 1))
		case kEnd:
			if i < n-1 {
				next = at(int32(i + 1))
			}
		case kLoop:
			site[i+1] = true // branches to the loop land here
			next = at(int32(i + 1))
		case kElse:
			next = at(f.branchTarget(f.target[i]))
		case kIf:
			fr := f.frames[f.target[i]]
			falsePos := fr.end // the false branch of an if without else runs its end
			if fr.hasElse {
				falsePos = fr.elseAt + 1
			}
			cost, next = 1, max(at(int32(i+1)), at(falsePos))
		case kBr:
			cost, next = 1, at(f.branchTarget(f.target[i]))
		case kBrIf:
			cost, next = 1, max(at(int32(i+1)), at(f.branchTarget(f.target[i])))
		case kBrTable:
			cost = 1
			for j := in.imm; j < in.imm+in.n; j++ {
				next = max(next, at(f.branchTarget(int32(f.labels[j]))))
			}
		case kReturn, kUnreachable:
			cost = 1
		case kCall, kCallIndirect:
			// A call into the module returns to here after running code of
			// its own; without a checkpoint here, the unwinding of a deep
			// recursion would run every frame's rest unchecked. A call of an
			// import, or of a bounded leaf (leaves.go), is charged here
			// instead, as part of this run.
			checked := true
			cost = 1 + MaxLeafCost // a call_indirect may reach a leaf, which does not check
			if in.kind == kCall {
				cost, checked = callCost(in.imm)
			}
			if checked && dist[i+1] > 0 {
				site[i+1] = true
			}
			next = at(int32(i + 1))
		default: // kPlain, kRefFunc, kBulk
			cost, next = 1, at(int32(i+1))
		}
		dist[i] = cost + next
		if dist[i] > MaxSegment {
			site[i] = true
		}
	}
	if entry {
		site[0] = true
	}
	return site, dist
}

// function appends defined function i, instrumented and prefixed with its
// size, to out.
func (ix *instrumenter) function(out []byte, i int) ([]byte, error) {
	m := ix.m
	if err := m.decodeBody(i, &ix.info, nil); err != nil {
		return nil, err
	}
	f := &ix.flow
	if err := f.structure(&ix.info); err != nil {
		return nil, err
	}
	site, dist := f.weights(ix.callCost, !ix.leaves.unchecked(i))
	c := &m.Codes[i]
	scratch := uint32(uint64(len(m.Types[m.Funcs[i]].Params)) + c.NumLocals)
	bulk := false
	for _, in := range f.insts {
		bulk = bulk || in.kind == kBulk
	}
	start := len(out)
	out = append(out, 0, 0, 0, 0, 0) // the body size, a 5-byte LEB128 filled in below
	groups := uint32(len(c.Locals))
	if bulk {
		groups++
	}
	out = appendU32(out, groups)
	for _, l := range c.Locals {
		out = append(appendU32(out, l.Count), l.Type)
	}
	if bulk {
		out = append(appendU32(out, 1), typeI32)
	}
	// Copy the body in runs, stopping only where something is inserted
	// (a checkpoint, a bulk operation's charge) or rewritten (a function
	// index that shifts).
	body, copied := c.Body, uint32(0)
	nImp := m.NumImportedFuncs
	for p := range f.insts {
		in := &f.insts[p]
		checkpoint := site[p] && dist[p] > 0
		reindex := (in.kind == kCall || in.kind == kRefFunc) && in.imm >= nImp
		if !checkpoint && !reindex && in.kind != kBulk {
			continue
		}
		out = append(out, body[copied:in.off]...)
		copied = in.off
		if checkpoint {
			out = ix.checkpoint(out, dist[p])
		}
		switch {
		case reindex:
			out = append(out, body[in.off:in.immAt]...)
			out = appendU32(out, ix.shift(in.imm))
			copied = in.end
		case in.kind == kBulk:
			out = ix.charge(out, scratch, *in)
		}
	}
	out = append(out, body[copied:]...)
	size := len(out) - start - 5
	if size > math.MaxUint32 {
		return nil, fmt.Errorf("instrumented body of %d bytes is too large", size)
	}
	putU32Fixed(out[start:start+5], uint32(size))
	return out, nil
}

// putU32Fixed writes v as a 5-byte (padded) LEB128, which the binary
// format allows.
func putU32Fixed(b []byte, v uint32) {
	for i := 0; i < 4; i++ {
		b[i] = byte(v&0x7f) | 0x80
		v >>= 7
	}
	b[4] = byte(v)
}

// checkpoint appends: budget -= w; if budget <= 0 { budget = check() }.
func (ix *instrumenter) checkpoint(out []byte, w int64) []byte {
	out = appendU32(append(out, opGlobalGet), ix.budget)
	out = appendS64(append(out, opI64Const), w)
	out = append(out, opI64Sub)
	out = appendU32(append(out, opGlobalSet), ix.budget)
	out = appendU32(append(out, opGlobalGet), ix.budget)
	out = append(out, opI64Const, 0, opI64LeS, opIf, 0x40)
	out = appendU32(append(out, opCall), ix.check)
	out = appendU32(append(out, opGlobalSet), ix.budget)
	return append(out, opEnd)
}

// charge appends code that subtracts a bulk operation's count operand (the
// i32 on top of the stack, left in place) from the budget, scaled by the
// instruction's unit: bytes/64 for memory, entries for tables, pages*1024
// for memory.grow. The next checkpoint then calls check if it is spent.
func (ix *instrumenter) charge(out []byte, scratch uint32, in inst) []byte {
	out = appendU32(append(out, opLocalTee), scratch)
	out = appendU32(append(out, opGlobalGet), ix.budget)
	out = appendU32(append(out, opLocalGet), scratch)
	out = append(out, opI64ExtendU)
	switch {
	case in.shift > 0:
		out = append(appendS64(append(out, opI64Const), int64(in.shift)), opI64ShrU)
	case in.shift < 0:
		out = append(appendS64(append(out, opI64Const), int64(-in.shift)), opI64ShlOp)
	}
	out = append(out, opI64Sub)
	return appendU32(append(out, opGlobalSet), ix.budget)
}
