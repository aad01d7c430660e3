package wasmbin

import (
	"fmt"
)

// Opcodes the control-flow analysis and the rewriter care about.
const (
	opUnreachable  = 0x00
	opBlock        = 0x02
	opLoop         = 0x03
	opIf           = 0x04
	opElse         = 0x05
	opBr           = 0x0c
	opBrIf         = 0x0d
	opBrTable      = 0x0e
	opReturn       = 0x0f
	opCall         = 0x10
	opCallIndirect = 0x11
	opDrop         = 0x1a
	opSelect       = 0x1b
	opSelectT      = 0x1c
	opLocalGet     = 0x20
	opLocalTee     = 0x22
	opGlobalSet    = 0x24
	opI64Sub       = 0x7d
	opI64LeS       = 0x57
	opMemorySize   = 0x3f
	opMemoryGrow   = 0x40
	opMisc         = 0xfc
	opI64ExtendU   = 0xad
	opI64ShlOp     = 0x86
	opI64ShrU      = 0x88
)

// Sub-opcodes of the 0xfc prefix.
const (
	miscMemoryInit = 8
	miscDataDrop   = 9
	miscMemoryCopy = 10
	miscMemoryFill = 11
	miscTableInit  = 12
	miscElemDrop   = 13
	miscTableCopy  = 14
	miscTableGrow  = 15
	miscTableSize  = 16
	miscTableFill  = 17
)

// SIMD sub-opcodes with immediates.
const (
	simdV128Const = 12
	simdShuffle   = 13
)

// kind classifies an instruction for control-flow analysis.
type kind uint8

const (
	kPlain        kind = iota // falls through, constant cost
	kBlock                    // block
	kLoop                     // loop
	kIf                       // if
	kElse                     // else
	kEnd                      // end
	kBr                       // br
	kBrIf                     // br_if
	kBrTable                  // br_table
	kReturn                   // return
	kUnreachable              // unreachable
	kCall                     // call
	kCallIndirect             // call_indirect
	kRefFunc                  // ref.func
	kBulk                     // a bulk operation whose cost is its count operand (top of stack)
)

// inst is one decoded instruction.
type inst struct {
	off   uint32 // offset of the opcode in the body
	end   uint32 // offset just past the instruction
	kind  kind
	shift int8   // kBulk: the count operand is charged >> shift units (<< -shift when negative)
	imm   uint32 // label depth (br, br_if), function index (call, ref.func), first label (br_table)
	n     uint32 // br_table: number of labels, the default included
	immAt uint32 // call, ref.func: offset of the function index
}

// decoder walks the instructions of one body.
type decoder struct {
	m      *Module
	r      reader
	labels []uint32 // br_table labels of the whole body
	// numLocals is the size of the local index space (params + locals).
	numLocals uint64
	// numGlobals is the size of the global index space.
	numGlobals uint32
	numTables  uint32
}

// immediate classes of the single-byte opcodes, for the decoder's table.
const (
	immBad     = iota // not an opcode of the supported set
	immNone           // no immediate
	immBlock          // a block type
	immLabel          // a label depth (br, br_if)
	immBrTable        // a vector of labels and a default
	immFunc           // a function index (call, ref.func)
	immCallInd        // a type index and a table index
	immLocal          // a local index
	immGlobal         // a global index
	immTable          // a table index (table.get, table.set)
	immMemarg         // alignment and offset
	immMemIdx         // a memory index (memory.size, memory.grow)
	immI32            // an s32
	immI64            // an s64
	immF32            // 4 bytes
	immF64            // 8 bytes
	immRefType        // a reference type (ref.null)
	immSelectT        // a vector of value types
	immPrefix         // 0xfc and 0xfd: a sub-opcode
)

// opTable classifies every single-byte opcode: its immediate and its kind.
var opTable = func() (t [256]struct{ imm, kind uint8 }) {
	set := func(imm uint8, k kind, ops ...int) {
		for _, op := range ops {
			t[op].imm, t[op].kind = imm, uint8(k)
		}
	}
	rng := func(from, to int) []int {
		var ops []int
		for op := from; op <= to; op++ {
			ops = append(ops, op)
		}
		return ops
	}
	set(immNone, kUnreachable, opUnreachable)
	set(immNone, kPlain, 0x01, opDrop, opSelect, 0xd1) // nop, drop, select, ref.is_null
	set(immBlock, kBlock, opBlock)
	set(immBlock, kLoop, opLoop)
	set(immBlock, kIf, opIf)
	set(immNone, kElse, opElse)
	set(immNone, kEnd, opEnd)
	set(immLabel, kBr, opBr)
	set(immLabel, kBrIf, opBrIf)
	set(immBrTable, kBrTable, opBrTable)
	set(immNone, kReturn, opReturn)
	set(immFunc, kCall, opCall)
	set(immFunc, kRefFunc, opRefFunc)
	set(immCallInd, kCallIndirect, opCallIndirect)
	set(immSelectT, kPlain, opSelectT)
	set(immLocal, kPlain, 0x20, 0x21, 0x22)
	set(immGlobal, kPlain, opGlobalGet, opGlobalSet)
	set(immTable, kPlain, 0x25, 0x26)
	set(immMemarg, kPlain, rng(0x28, 0x3e)...)
	set(immMemIdx, kPlain, opMemorySize)
	set(immMemIdx, kBulk, opMemoryGrow)
	set(immI32, kPlain, opI32Const)
	set(immI64, kPlain, opI64Const)
	set(immF32, kPlain, opF32Const)
	set(immF64, kPlain, opF64Const)
	set(immNone, kPlain, rng(0x45, 0xc4)...) // numeric, sign extension
	set(immRefType, kPlain, opRefNull)
	set(immPrefix, kPlain, opMisc, opSIMD)
	return t
}()

// u32At decodes an unsigned LEB128 u32 at b[pos:], the common one-byte
// case inline.
func u32At(b []byte, pos int) (uint32, int, error) {
	if pos < len(b) && b[pos] < 0x80 {
		return uint32(b[pos]), pos + 1, nil
	}
	r := reader{b: b, pos: pos}
	v, err := r.u32()
	return v, r.pos, err
}

// next decodes one instruction into in. It checks what the rewriter relies
// on: the encoding, known opcodes, and that function, global, table and
// local indices are in range of the module as it was received.
func (d *decoder) next(in *inst) error {
	b, pos := d.r.b, d.r.pos
	*in = inst{off: uint32(pos)}
	if pos >= len(b) {
		return errEOF
	}
	op := b[pos]
	pos++
	t := opTable[op]
	in.kind = kind(t.kind)
	var err error
	var idx uint32
	switch t.imm {
	case immNone:
	case immLocal:
		if idx, pos, err = u32At(b, pos); err == nil && uint64(idx) >= d.numLocals {
			err = fmt.Errorf("local index %d out of range (%d locals)", idx, d.numLocals)
		}
	case immGlobal:
		if idx, pos, err = u32At(b, pos); err == nil && idx >= d.numGlobals {
			err = fmt.Errorf("global index %d out of range (%d globals)", idx, d.numGlobals)
		}
	case immLabel:
		in.imm, pos, err = u32At(b, pos)
	case immFunc:
		in.immAt = uint32(pos)
		if in.imm, pos, err = u32At(b, pos); err == nil {
			err = d.funcIndex(in.imm)
		}
	case immI32, immI64:
		if pos < len(b) && b[pos] < 0x40 { // a one-byte non-negative constant
			pos++
			break
		}
		d.r.pos = pos
		if t.imm == immI32 {
			_, err = d.r.signed(32)
		} else {
			_, err = d.r.signed(64)
		}
		pos = d.r.pos
	default:
		d.r.pos = pos
		err = d.rare(op, t.imm, in)
		pos = d.r.pos
	}
	d.r.pos = pos
	in.end = uint32(pos)
	return err
}

// rare decodes the immediates of the less frequent opcodes at d.r.pos.
func (d *decoder) rare(op byte, imm uint8, in *inst) error {
	r := &d.r
	var err error
	switch imm {
	case immMemarg:
		err = d.memarg()
	case immBlock:
		err = d.blockType()
	case immBrTable:
		err = d.brTable(in)
	case immCallInd:
		if _, err = d.typeIndex(); err == nil {
			err = d.tableIndex()
		}
	case immSelectT:
		var n uint32
		if n, err = r.count("select types", 1); err == nil {
			_, err = valTypesN(r, n)
		}
	case immTable:
		err = d.tableIndex()
	case immMemIdx:
		err = d.memIndex()
		if op == opMemoryGrow {
			in.shift = -10 // a page is charged 1024 units
		}
	case immF32:
		_, err = r.bytes(4)
	case immF64:
		_, err = r.bytes(8)
	case immRefType:
		var t byte
		if t, err = r.byte(); err == nil && !isRefType(t) {
			err = fmt.Errorf("ref.null of unknown type %#x", t)
		}
	case immPrefix:
		if op == opMisc {
			return d.misc(in)
		}
		return d.simd()
	default:
		return unknownOpcode(op)
	}
	return err
}

func unknownOpcode(op byte) error {
	switch op {
	case 0x06, 0x07, 0x08, 0x09, 0x0a, 0x18, 0x19, 0x1f:
		return fmt.Errorf("%w: opcode %#x (exception handling)", ErrFeature, op)
	case 0x12, 0x13:
		return fmt.Errorf("%w: opcode %#x (tail calls)", ErrFeature, op)
	case 0x14, 0x15, 0xd3, 0xd4, 0xd5, 0xd6, 0xfb:
		return fmt.Errorf("%w: opcode %#x (typed function references or GC)", ErrFeature, op)
	case 0xfe:
		return fmt.Errorf("%w: opcode %#x (threads)", ErrFeature, op)
	}
	return fmt.Errorf("unknown opcode %#x", op)
}

func valTypesN(r *reader, n uint32) ([]byte, error) {
	b, err := r.bytes(uint64(n))
	if err != nil {
		return nil, err
	}
	for _, t := range b {
		if !isValType(t) {
			return nil, fmt.Errorf("unknown value type %#x", t)
		}
	}
	return b, nil
}

// blockType reads an empty block type (0x40), a value type, or a type index
// (s33).
func (d *decoder) blockType() error {
	if d.r.pos < len(d.r.b) {
		switch t := d.r.b[d.r.pos]; {
		case t == 0x40:
			d.r.pos++
			return nil
		case isValType(t):
			d.r.pos++
			return nil
		}
	}
	idx, err := d.r.signed(33)
	if err != nil {
		return err
	}
	if idx < 0 || idx >= int64(len(d.m.Types)) {
		return fmt.Errorf("block type %d is neither a value type nor a type index (%d types)", idx, len(d.m.Types))
	}
	return nil
}

func (d *decoder) brTable(in *inst) error {
	in.kind = kBrTable
	n, err := d.r.count("br_table labels", 1)
	if err != nil {
		return err
	}
	in.imm = uint32(len(d.labels))
	in.n = n + 1
	for i := uint32(0); i <= n; i++ {
		l, err := d.r.u32()
		if err != nil {
			return err
		}
		d.labels = append(d.labels, l)
	}
	return nil
}

func (d *decoder) funcIndex(idx uint32) error {
	if idx >= d.m.NumFuncs() {
		return fmt.Errorf("function index %d out of range (%d functions)", idx, d.m.NumFuncs())
	}
	return nil
}

func (d *decoder) typeIndex() (uint32, error) {
	idx, err := d.r.u32()
	if err == nil && idx >= uint32(len(d.m.Types)) {
		err = fmt.Errorf("type index %d out of range (%d types)", idx, len(d.m.Types))
	}
	return idx, err
}

func (d *decoder) tableIndex() error {
	idx, err := d.r.u32()
	if err == nil && idx >= d.numTables {
		err = fmt.Errorf("table index %d out of range (%d tables)", idx, d.numTables)
	}
	return err
}

func (d *decoder) memIndex() error {
	idx, err := d.r.u32()
	if err == nil && idx != 0 {
		err = fmt.Errorf("%w: memory index %d (multiple memories)", ErrFeature, idx)
	}
	return err
}

func (d *decoder) dataIndex() error {
	idx, err := d.r.u32()
	if err == nil && (d.m.DataCount == nil || idx >= *d.m.DataCount) {
		err = fmt.Errorf("data index %d needs a data count section that covers it", idx)
	}
	return err
}

func (d *decoder) elemIndex() error {
	idx, err := d.r.u32()
	if err == nil && idx >= uint32(len(d.m.Elems)) {
		err = fmt.Errorf("element segment index %d out of range (%d segments)", idx, len(d.m.Elems))
	}
	return err
}

func (d *decoder) memarg() error {
	align, err := d.r.u32()
	if err != nil {
		return err
	}
	if align >= 64 {
		return fmt.Errorf("%w: memory argument alignment flag %d (multiple memories)", ErrFeature, align)
	}
	_, err = d.r.u32()
	return err
}

func (d *decoder) misc(in *inst) error {
	sub, err := d.r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub <= 7: // saturating truncations
		return nil
	case sub == miscMemoryInit:
		in.kind, in.shift = kBulk, 6
		if err = d.dataIndex(); err == nil {
			err = d.memIndex()
		}
	case sub == miscDataDrop:
		err = d.dataIndex()
	case sub == miscMemoryCopy:
		in.kind, in.shift = kBulk, 6
		if err = d.memIndex(); err == nil {
			err = d.memIndex()
		}
	case sub == miscMemoryFill:
		in.kind, in.shift = kBulk, 6
		err = d.memIndex()
	case sub == miscTableInit:
		in.kind = kBulk
		if err = d.elemIndex(); err == nil {
			err = d.tableIndex()
		}
	case sub == miscElemDrop:
		err = d.elemIndex()
	case sub == miscTableCopy:
		in.kind = kBulk
		if err = d.tableIndex(); err == nil {
			err = d.tableIndex()
		}
	case sub == miscTableGrow || sub == miscTableFill:
		in.kind = kBulk
		err = d.tableIndex()
	case sub == miscTableSize:
		err = d.tableIndex()
	default:
		return fmt.Errorf("unknown opcode 0xfc %d", sub)
	}
	return err
}

// simdUnassigned are the opcodes of the 0xfd space, below 256, that the
// fixed-width SIMD proposal leaves unassigned.
var simdUnassigned = map[uint32]bool{
	0x9a: true, 0xa2: true, 0xa5: true, 0xa6: true, 0xaf: true, 0xb0: true, 0xb2: true, 0xb3: true,
	0xb4: true, 0xbb: true, 0xc2: true, 0xc5: true, 0xc6: true, 0xcf: true, 0xd0: true, 0xd2: true,
	0xd3: true, 0xd4: true, 0xe2: true, 0xee: true,
}

func (d *decoder) simd() error {
	sub, err := d.r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub <= 11 || sub == 92 || sub == 93: // loads and stores
		return d.memarg()
	case sub == simdV128Const || sub == simdShuffle:
		_, err = d.r.bytes(16)
		if err == nil && sub == simdShuffle {
			for _, lane := range d.r.b[d.r.pos-16 : d.r.pos] {
				if lane >= 32 {
					return fmt.Errorf("i8x16.shuffle lane %d out of range", lane)
				}
			}
		}
		return err
	case sub >= 21 && sub <= 34: // extract and replace lane
		_, err = d.r.byte()
		return err
	case sub >= 84 && sub <= 91: // load and store lane
		if err = d.memarg(); err == nil {
			_, err = d.r.byte()
		}
		return err
	case sub > 0xff:
		return fmt.Errorf("%w: opcode 0xfd %d (relaxed SIMD)", ErrFeature, sub)
	case simdUnassigned[sub]:
		return fmt.Errorf("unknown opcode 0xfd %d", sub)
	}
	return nil
}
