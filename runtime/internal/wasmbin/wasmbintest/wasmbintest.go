// Package wasmbintest builds WebAssembly binary modules for tests: hostile
// and extreme modules, generated programs, fixtures the text format cannot
// express. It is self-contained (it does not import wasmbin), so the
// decoder's own tests can use it, and it emits whatever it is told: the
// modules it builds are exactly as valid as their parts.
package wasmbintest

// Value and reference types.
const (
	I32       = 0x7f
	I64       = 0x7e
	F32       = 0x7d
	F64       = 0x7c
	V128      = 0x7b
	Funcref   = 0x70
	Externref = 0x6f
)

// FuncType is a function type.
type FuncType struct{ Params, Results []byte }

// Import is a function import.
type Import struct {
	Module, Name string
	Type         uint32
}

// Local is a run of locals of one type.
type Local struct {
	Count uint32
	Type  byte
}

// Func is a defined function; Body holds its instructions without the
// final end.
type Func struct {
	Type   uint32
	Locals []Local
	Body   []byte
	Export string
}

// Limits are a table's or memory's limits.
type Limits struct {
	Min, Max uint32
	HasMax   bool
}

// Table is a table definition.
type Table struct {
	RefType byte
	Limits
}

// Global is a global definition; Init is a constant expression with its end.
type Global struct {
	Type    byte
	Mutable bool
	Init    []byte
	Export  string
}

// Elem is an active element segment of function indices for table 0.
type Elem struct {
	Offset []byte // a constant expression with its end
	Funcs  []uint32
}

// Module is a module to build. Indices are the caller's business.
type Module struct {
	Types        []FuncType
	Imports      []Import
	Funcs        []Func
	Tables       []Table
	Memory       *Limits
	MemoryExport string // default "memory"
	Globals      []Global
	Elems        []Elem
	Start        *uint32
	Data         [][]byte // active segments laid end to end from address 0
	// Segments are data segments written as given, after Data's; with
	// DataCount the data count section says how many there are.
	Segments  []Segment
	DataCount bool
}

// Segment is a data segment: active at Offset (a constant expression with
// its end) for memory 0, or passive.
type Segment struct {
	Offset  []byte
	Init    []byte
	Passive bool
}

// Type returns the index of the function type, adding it if needed.
func (m *Module) Type(params, results []byte) uint32 {
	for i, ft := range m.Types {
		if string(ft.Params) == string(params) && string(ft.Results) == string(results) {
			return uint32(i)
		}
	}
	m.Types = append(m.Types, FuncType{Params: params, Results: results})
	return uint32(len(m.Types) - 1)
}

// Func adds a function and returns its index in the function index space.
func (m *Module) Func(f Func) uint32 {
	m.Funcs = append(m.Funcs, f)
	return uint32(len(m.Imports) + len(m.Funcs) - 1)
}

// Bytes encodes the module.
func (m *Module) Bytes() []byte {
	out := []byte("\x00asm\x01\x00\x00\x00")
	out = section(out, 1, vec(len(m.Types), func(b []byte, i int) []byte {
		t := m.Types[i]
		b = append(b, 0x60)
		b = append(U32(b, uint32(len(t.Params))), t.Params...)
		return append(U32(b, uint32(len(t.Results))), t.Results...)
	}))
	if len(m.Imports) > 0 {
		out = section(out, 2, vec(len(m.Imports), func(b []byte, i int) []byte {
			im := m.Imports[i]
			b = name(name(b, im.Module), im.Name)
			return U32(append(b, 0), im.Type)
		}))
	}
	out = section(out, 3, vec(len(m.Funcs), func(b []byte, i int) []byte { return U32(b, m.Funcs[i].Type) }))
	if len(m.Tables) > 0 {
		out = section(out, 4, vec(len(m.Tables), func(b []byte, i int) []byte {
			return limits(append(b, m.Tables[i].RefType), m.Tables[i].Limits)
		}))
	}
	if m.Memory != nil {
		out = section(out, 5, limits(U32(nil, 1), *m.Memory))
	}
	if len(m.Globals) > 0 {
		out = section(out, 6, vec(len(m.Globals), func(b []byte, i int) []byte {
			g := m.Globals[i]
			mut := byte(0)
			if g.Mutable {
				mut = 1
			}
			return append(append(b, g.Type, mut), g.Init...)
		}))
	}
	out = section(out, 7, m.exports())
	if m.Start != nil {
		out = section(out, 8, U32(nil, *m.Start))
	}
	if len(m.Elems) > 0 {
		out = section(out, 9, vec(len(m.Elems), func(b []byte, i int) []byte {
			e := m.Elems[i]
			b = append(U32(b, 0), e.Offset...)
			return vec32(b, e.Funcs)
		}))
	}
	if m.DataCount {
		out = section(out, 12, U32(nil, uint32(len(m.Data)+len(m.Segments))))
	}
	out = section(out, 10, vec(len(m.Funcs), func(b []byte, i int) []byte {
		f := m.Funcs[i]
		body := vec(len(f.Locals), func(c []byte, j int) []byte { return append(U32(c, f.Locals[j].Count), f.Locals[j].Type) })
		body = append(append(body, f.Body...), 0x0b)
		return append(U32(b, uint32(len(body))), body...)
	}))
	if len(m.Data)+len(m.Segments) > 0 {
		off := int64(0)
		out = section(out, 11, vec(len(m.Data)+len(m.Segments), func(b []byte, i int) []byte {
			if i >= len(m.Data) {
				s := m.Segments[i-len(m.Data)]
				if s.Passive {
					b = U32(b, 1)
				} else {
					b = append(U32(b, 0), s.Offset...)
				}
				return append(U32(b, uint32(len(s.Init))), s.Init...)
			}
			b = append(append(U32(b, 0), I32Const(int32(off))...), 0x0b)
			off += int64(len(m.Data[i]))
			return append(U32(b, uint32(len(m.Data[i]))), m.Data[i]...)
		}))
	}
	return out
}

func (m *Module) exports() []byte {
	var n int
	var b []byte
	add := func(nm string, kind byte, idx uint32) {
		n++
		b = U32(append(name(b, nm), kind), idx)
	}
	for i, f := range m.Funcs {
		if f.Export != "" {
			add(f.Export, 0, uint32(len(m.Imports)+i))
		}
	}
	for i, g := range m.Globals {
		if g.Export != "" {
			add(g.Export, 3, uint32(i))
		}
	}
	if m.Memory != nil {
		nm := m.MemoryExport
		if nm == "" {
			nm = "memory"
		}
		add(nm, 2, 0)
	}
	return append(U32(nil, uint32(n)), b...)
}

func section(out []byte, id byte, body []byte) []byte {
	return append(U32(append(out, id), uint32(len(body))), body...)
}

func vec(n int, item func([]byte, int) []byte) []byte {
	b := U32(nil, uint32(n))
	for i := 0; i < n; i++ {
		b = item(b, i)
	}
	return b
}

func vec32(b []byte, v []uint32) []byte {
	b = U32(b, uint32(len(v)))
	for _, x := range v {
		b = U32(b, x)
	}
	return b
}

func name(b []byte, s string) []byte { return append(U32(b, uint32(len(s))), s...) }

func limits(b []byte, l Limits) []byte {
	if !l.HasMax {
		return U32(append(b, 0), l.Min)
	}
	return U32(U32(append(b, 1), l.Min), l.Max)
}

// U32 appends v as an unsigned LEB128.
func U32(b []byte, v uint32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// S64 appends v as a signed LEB128.
func S64(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// Cat concatenates instruction bytes.
func Cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// Repeat returns n copies of code.
func Repeat(n int, code []byte) []byte {
	b := make([]byte, 0, n*len(code))
	for range n {
		b = append(b, code...)
	}
	return b
}

// Instructions.
func I32Const(v int32) []byte   { return S64([]byte{0x41}, int64(v)) }
func I64Const(v int64) []byte   { return S64([]byte{0x42}, v) }
func LocalGet(i uint32) []byte  { return U32([]byte{0x20}, i) }
func LocalSet(i uint32) []byte  { return U32([]byte{0x21}, i) }
func LocalTee(i uint32) []byte  { return U32([]byte{0x22}, i) }
func GlobalGet(i uint32) []byte { return U32([]byte{0x23}, i) }
func GlobalSet(i uint32) []byte { return U32([]byte{0x24}, i) }
func Call(i uint32) []byte      { return U32([]byte{0x10}, i) }
func Br(d uint32) []byte        { return U32([]byte{0x0c}, d) }
func BrIf(d uint32) []byte      { return U32([]byte{0x0d}, d) }

// ConstExpr returns a constant expression (instruction plus end).
func ConstExpr(instr []byte) []byte { return append(append([]byte(nil), instr...), 0x0b) }

// Single-byte opcodes the tests use.
const (
	Unreachable   = 0x00
	Nop           = 0x01
	Block         = 0x02
	Loop          = 0x03
	If            = 0x04
	Else          = 0x05
	End           = 0x0b
	BrTable       = 0x0e
	Return        = 0x0f
	CallIndirect  = 0x11
	Drop          = 0x1a
	I32Eqz        = 0x45
	I32And        = 0x71
	I32Sub        = 0x6b
	I32RemU       = 0x70
	I64Eqz        = 0x50
	I64Add        = 0x7c
	I64Mul        = 0x7e
	I64And        = 0x83
	I64Xor        = 0x85
	I32WrapI64    = 0xa7
	I64ExtendI32S = 0xac
	RefNull       = 0xd0
	Misc          = 0xfc
	BlockEmpty    = 0x40
)
