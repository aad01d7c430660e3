package wasmbin

import "fmt"

// numGlobals is the size of the global index space.
func (m *Module) numGlobals() uint32 {
	return uint32(m.numImported(KindGlobal) + len(m.Globals))
}

// checkIndices checks every index outside function bodies that names a
// function, table, memory or global, and decodes every body. After it, no
// part of the module refers past the index spaces it declares, so entities
// appended by instrumentation cannot be reached from the module's own code.
func (m *Module) checkIndices() error {
	nf, ng, nt := m.NumFuncs(), m.numGlobals(), uint32(len(m.Tables))
	inRange := map[byte]uint32{KindFunc: nf, KindTable: nt, KindMemory: uint32(len(m.Memories)), KindGlobal: ng}
	for _, e := range m.Exports {
		if e.Index >= inRange[e.Kind] {
			return fmt.Errorf("export %q: index %d out of range (%d)", clip(e.Name), e.Index, inRange[e.Kind])
		}
	}
	if m.Start != nil && *m.Start >= nf {
		return fmt.Errorf("start function %d out of range (%d functions)", *m.Start, nf)
	}
	for i, g := range m.Globals {
		if err := m.checkConst(g.Init); err != nil {
			return fmt.Errorf("global %d: %w", i, err)
		}
	}
	for i, e := range m.Elems {
		if err := m.checkElem(e); err != nil {
			return fmt.Errorf("element segment %d: %w", i, err)
		}
	}
	for i := range m.Codes {
		var c funcCost
		if err := m.decodeBody(i, nil, &c); err != nil {
			return fmt.Errorf("function %d: %w", m.NumImportedFuncs+uint32(i), err)
		}
		if err := m.addFunc(m.NumImportedFuncs+uint32(i), &c); err != nil {
			return err
		}
	}
	return m.checkCost()
}

func (m *Module) checkElem(e Elem) error {
	if e.Flags&1 == 0 && e.Table >= uint32(len(m.Tables)) {
		return fmt.Errorf("table %d out of range (%d tables)", e.Table, len(m.Tables))
	}
	if e.Offset != nil {
		if err := m.checkConst(e.Offset); err != nil {
			return err
		}
	}
	for _, f := range e.Funcs {
		if f >= m.NumFuncs() {
			return fmt.Errorf("function index %d out of range (%d functions)", f, m.NumFuncs())
		}
	}
	for _, x := range e.Exprs {
		if err := m.checkConst(x); err != nil {
			return err
		}
	}
	return nil
}

func (m *Module) checkConst(expr []byte) error {
	switch kind, idx := constIndex(expr); {
	case kind == opRefFunc && idx >= m.NumFuncs():
		return fmt.Errorf("ref.func %d out of range (%d functions)", idx, m.NumFuncs())
	case kind == opGlobalGet && idx >= m.numGlobals():
		return fmt.Errorf("global.get %d out of range (%d globals)", idx, m.numGlobals())
	}
	return nil
}

// bodyInfo is what decoding one body finds.
type bodyInfo struct {
	insts  []inst
	labels []uint32
}

// decodeBody decodes function body i whole and checks its block structure.
// With info, it keeps the instructions and br_table labels there (reusing
// its slices); without, it only validates. With cost, it charges every
// instruction there (cost.go).
func (m *Module) decodeBody(i int, info *bodyInfo, cost *funcCost) error {
	c := &m.Codes[i]
	params := uint64(len(m.Types[m.Funcs[i]].Params))
	d := &decoder{m: m, r: reader{b: c.Body}, numLocals: params + c.NumLocals, numGlobals: m.numGlobals(), numTables: uint32(len(m.Tables))}
	keep := info != nil
	if keep {
		info.insts, d.labels = info.insts[:0], info.labels[:0]
	}
	// open holds, for each open block, its kind (kIf becomes kElse once its
	// else is seen), the function's own block first.
	open := []kind{kBlock}
	branches := uint32(0)
	var in inst
	for d.r.len() > 0 {
		depth := len(open)
		err := d.next(&in)
		if err != nil {
			return fmt.Errorf("at body offset %d: %w", in.off, err)
		}
		if cost != nil {
			cost.add(&in)
		}
		switch in.kind {
		case kBlock, kLoop, kIf, kBrIf, kCall, kCallIndirect:
			branches++
		case kBrTable:
			branches += in.n // each label is an edge for the compiler
		}
		if branches > m.limits.BranchesPerFunction {
			return check("BranchesPerFunction", "branches (block, loop, if, br_if, br_table labels, call) in the function", uint64(branches), uint64(m.limits.BranchesPerFunction))
		}
		switch in.kind {
		case kBlock, kLoop, kIf:
			open = append(open, in.kind)
		case kElse:
			if depth < 2 || open[depth-1] != kIf {
				return fmt.Errorf("else at offset %d without its if", in.off)
			}
			open[depth-1] = kElse
		case kEnd:
			open = open[:depth-1]
			if len(open) == 0 && d.r.len() != 0 {
				return fmt.Errorf("code after the function's final end at offset %d", in.end)
			}
		case kBr, kBrIf:
			if in.imm >= uint32(depth) {
				return fmt.Errorf("branch depth %d at offset %d is outside the %d enclosing blocks", in.imm, in.off, depth)
			}
		case kBrTable:
			for _, l := range d.labels[in.imm : in.imm+in.n] {
				if l >= uint32(depth) {
					return fmt.Errorf("br_table depth %d at offset %d is outside the %d enclosing blocks", l, in.off, depth)
				}
			}
		}
		if keep {
			info.insts = append(info.insts, in)
		} else if in.kind == kBrTable {
			d.labels = d.labels[:0]
		}
	}
	if len(open) != 0 {
		return fmt.Errorf("%d blocks not closed by end", len(open))
	}
	if keep {
		info.labels = d.labels
	}
	return nil
}
