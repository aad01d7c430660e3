package wasmbin

import "fmt"

// Opcodes allowed in constant expressions (WebAssembly 2.0, no
// extended-const).
const (
	opEnd       = 0x0b
	opGlobalGet = 0x23
	opI32Const  = 0x41
	opI64Const  = 0x42
	opF32Const  = 0x43
	opF64Const  = 0x44
	opRefNull   = 0xd0
	opRefFunc   = 0xd2
	opSIMD      = 0xfd
)

// constExpr reads one constant expression up to and including its end and
// returns its bytes.
func constExpr(r *reader) ([]byte, error) {
	start := r.pos
	for n := 0; ; n++ {
		op, err := r.byte()
		if err != nil {
			return nil, err
		}
		if op == opEnd {
			if n == 0 {
				return nil, fmt.Errorf("empty constant expression")
			}
			return r.b[start:r.pos], nil
		}
		if n > 0 {
			return nil, fmt.Errorf("%w: constant expression of more than one instruction (extended-const)", ErrFeature)
		}
		if err := constOperand(r, op); err != nil {
			return nil, err
		}
	}
}

func constOperand(r *reader, op byte) error {
	var err error
	switch op {
	case opI32Const:
		_, err = r.signed(32)
	case opI64Const:
		_, err = r.signed(64)
	case opF32Const:
		_, err = r.bytes(4)
	case opF64Const:
		_, err = r.bytes(8)
	case opRefNull:
		var t byte
		if t, err = r.byte(); err == nil && !isRefType(t) {
			err = fmt.Errorf("ref.null of unknown type %#x", t)
		}
	case opRefFunc, opGlobalGet:
		_, err = r.u32()
	case opSIMD:
		var sub uint32
		if sub, err = r.u32(); err == nil {
			if sub != simdV128Const {
				return fmt.Errorf("SIMD opcode %d is not constant", sub)
			}
			_, err = r.bytes(16)
		}
	default:
		return fmt.Errorf("opcode %#x is not allowed in a constant expression", op)
	}
	return err
}

// constIndex returns the function index of a ref.func expression, or the
// global index of a global.get one; kind is opRefFunc, opGlobalGet or 0.
func constIndex(expr []byte) (kind byte, idx uint32) {
	if len(expr) == 0 || (expr[0] != opRefFunc && expr[0] != opGlobalGet) {
		return 0, 0
	}
	r := &reader{b: expr, pos: 1}
	idx, _ = r.u32() // already decoded once by constExpr
	return expr[0], idx
}

// rewriteConst returns expr with the function index of a ref.func mapped by
// fn; any other expression is returned as is.
func rewriteConst(expr []byte, fn func(uint32) uint32) []byte {
	kind, idx := constIndex(expr)
	if kind != opRefFunc {
		return expr
	}
	out := appendU32([]byte{opRefFunc}, fn(idx))
	return append(out, opEnd)
}
