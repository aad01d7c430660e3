package wasmbin

// A small builder of binary modules for tests: just enough structure to
// write functions as instruction bytes.

type tFunc struct {
	typ    uint32
	locals []LocalDecl
	body   []byte // instructions, without the final end
	export string
}

type tModule struct {
	types   []FuncType
	imports []Import
	funcs   []tFunc
	tables  []Table
	memory  *Table
	globals []Global
	gexport map[uint32]string // global index -> export name
	elems   []Elem
	start   *uint32
	data    [][]byte // passive? no: active segments at offset 0.. (see build)
}

func (t *tModule) typeOf(params, results []byte) uint32 {
	for i, ft := range t.types {
		if string(ft.Params) == string(params) && string(ft.Results) == string(results) {
			return uint32(i)
		}
	}
	t.types = append(t.types, FuncType{Params: params, Results: results})
	return uint32(len(t.types) - 1)
}

func (t *tModule) build() []byte {
	out := []byte("\x00asm\x01\x00\x00\x00")
	out = appendSection(out, secType, encodeTypes(t.types))
	if len(t.imports) > 0 {
		out = appendSection(out, secImport, encodeImports(t.imports))
	}
	id := func(x uint32) uint32 { return x }
	fs := make([]uint32, len(t.funcs))
	for i, f := range t.funcs {
		fs[i] = f.typ
	}
	out = appendSection(out, secFunction, encodeU32s(fs, id))
	if len(t.tables) > 0 {
		out = appendSection(out, secTable, encodeTables(t.tables))
	}
	if t.memory != nil {
		out = appendSection(out, secMemory, encodeMemories([]Table{*t.memory}))
	}
	if len(t.globals) > 0 {
		out = appendSection(out, secGlobal, encodeGlobals(t.globals, id))
	}
	var exports []Export
	nImp := uint32(len(t.imports))
	for i, f := range t.funcs {
		if f.export != "" {
			exports = append(exports, Export{Name: f.export, Kind: KindFunc, Index: nImp + uint32(i)})
		}
	}
	for g, name := range t.gexport {
		exports = append(exports, Export{Name: name, Kind: KindGlobal, Index: g})
	}
	if t.memory != nil {
		exports = append(exports, Export{Name: "memory", Kind: KindMemory})
	}
	if len(exports) > 0 {
		out = appendSection(out, secExport, encodeExports(exports, id))
	}
	if t.start != nil {
		out = appendSection(out, secStart, appendU32(nil, *t.start))
	}
	if len(t.elems) > 0 {
		out = appendSection(out, secElement, encodeElems(t.elems, id))
	}
	code := appendU32(nil, uint32(len(t.funcs)))
	for _, f := range t.funcs {
		b := appendU32(nil, uint32(len(f.locals)))
		for _, l := range f.locals {
			b = append(appendU32(b, l.Count), l.Type)
		}
		b = append(append(b, f.body...), opEnd)
		code = append(appendU32(code, uint32(len(b))), b...)
	}
	out = appendSection(out, secCode, code)
	if len(t.data) > 0 {
		d := appendU32(nil, uint32(len(t.data)))
		off := int64(0)
		for _, seg := range t.data {
			d = append(appendS64(append(appendU32(d, 0), opI32Const), off), opEnd)
			d = append(appendU32(d, uint32(len(seg))), seg...)
			off += int64(len(seg))
		}
		out = appendSection(out, secData, d)
	}
	return out
}

// Instruction helpers, each returning the bytes of one instruction.
func i32c(v int32) []byte  { return appendS64([]byte{opI32Const}, int64(v)) }
func i64c(v int64) []byte  { return appendS64([]byte{opI64Const}, v) }
func lget(i uint32) []byte { return appendU32([]byte{opLocalGet}, i) }
func lset(i uint32) []byte { return appendU32([]byte{0x21}, i) }
func ltee(i uint32) []byte { return appendU32([]byte{opLocalTee}, i) }
func gget(i uint32) []byte { return appendU32([]byte{opGlobalGet}, i) }
func gset(i uint32) []byte { return appendU32([]byte{opGlobalSet}, i) }
func call(i uint32) []byte { return appendU32([]byte{opCall}, i) }
func br(d uint32) []byte   { return appendU32([]byte{opBr}, d) }
func brIf(d uint32) []byte { return appendU32([]byte{opBrIf}, d) }

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

const (
	opI32Eqz = 0x45
	opI32Sub = 0x6b
	opI64Add = 0x7c
	opI64Mul = 0x7e
	opI64Xor = 0x85
)
