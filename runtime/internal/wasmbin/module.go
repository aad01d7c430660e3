// Package wasmbin decodes, bounds and rewrites WebAssembly core modules
// (binary format, the feature set of WebAssembly 2.0 that wazero enables by
// default: multi-value, sign extension, saturating conversions, bulk memory,
// reference types and fixed-width SIMD).
//
// Parse is a structural pass over the whole binary: every section and every
// instruction is decoded, every count is checked against Limits before
// anything is allocated for it, and every index that instrumentation could
// change meaning of (functions, globals, export targets) is checked against
// the module's own index spaces. It does not type-check: the compiler that
// runs the module does that, on the rewritten bytes.
//
// Instrument rewrites a parsed module so that a host function can stop it
// (see instrument.go), and bounds its tables.
//
// The package refuses any feature outside that set (threads, tail calls,
// exception handling, multiple memories, GC types, extended constant
// expressions): a module using one is not rewritten, and the error says
// which.
package wasmbin

import (
	"errors"
	"fmt"
)

// Section ids of the binary format.
const (
	secCustom    = 0
	secType      = 1
	secImport    = 2
	secFunction  = 3
	secTable     = 4
	secMemory    = 5
	secGlobal    = 6
	secExport    = 7
	secStart     = 8
	secElement   = 9
	secCode      = 10
	secData      = 11
	secDataCount = 12
	secTag       = 13
)

// sectionOrder is where each known section may appear (data count sits
// between element and code).
var sectionOrder = map[byte]int{
	secType: 1, secImport: 2, secFunction: 3, secTable: 4, secMemory: 5, secGlobal: 6,
	secExport: 7, secStart: 8, secElement: 9, secDataCount: 10, secCode: 11, secData: 12,
}

var sectionNames = map[byte]string{
	secCustom: "custom", secType: "type", secImport: "import", secFunction: "function", secTable: "table",
	secMemory: "memory", secGlobal: "global", secExport: "export", secStart: "start", secElement: "element",
	secCode: "code", secData: "data", secDataCount: "data count", secTag: "tag",
}

// Import kinds (external kinds of imports and exports).
const (
	KindFunc   = 0
	KindTable  = 1
	KindMemory = 2
	KindGlobal = 3
	KindTag    = 4
)

// Value and reference types.
const (
	typeI32       = 0x7f
	typeI64       = 0x7e
	typeF32       = 0x7d
	typeF64       = 0x7c
	typeV128      = 0x7b
	typeFuncref   = 0x70
	typeExternref = 0x6f
)

// FuncType is one entry of the type section.
type FuncType struct {
	Params, Results []byte // value types
}

// Import is one entry of the import section.
type Import struct {
	Module, Name string
	Kind         byte
	Type         uint32 // the type index of a function import
}

// Table is one table definition. The host enforces Max (see Instrument).
type Table struct {
	RefType  byte
	Min, Max uint32
	HasMax   bool
}

// Global is one global definition.
type Global struct {
	Type    byte
	Mutable bool
	Init    []byte // the constant expression, including its end
}

// Export is one entry of the export section.
type Export struct {
	Name  string
	Kind  byte
	Index uint32
}

// Elem is one element segment.
type Elem struct {
	Flags   uint32
	Table   uint32
	Offset  []byte   // active segments: the offset expression, including its end
	Kind    byte     // elemkind (0x00) or reference type
	Funcs   []uint32 // flags 0-3: function indices
	Exprs   [][]byte // flags 4-7: constant expressions, each including its end
	entries int
}

// Code is one function body.
type Code struct {
	Locals    []LocalDecl
	NumLocals uint64 // declared locals, parameters not included
	Body      []byte // the instructions, ending with the function's end
}

// LocalDecl is one run of locals of one type.
type LocalDecl struct {
	Count uint32
	Type  byte
}

// Module is a decoded core module. Slices of bytes alias the input.
type Module struct {
	Types     []FuncType
	Imports   []Import
	Funcs     []uint32 // type index of each defined function
	Tables    []Table
	Memories  []Table // RefType unused
	Globals   []Global
	Exports   []Export
	Start     *uint32
	Elems     []Elem
	DataCount *uint32
	Codes     []Code
	Data      []byte // the data section's contents, copied as is

	NumImportedFuncs uint32
	hasData          bool
	limits           Limits
	cost             Cost
}

// NumFuncs is the size of the function index space.
func (m *Module) NumFuncs() uint32 { return m.NumImportedFuncs + uint32(len(m.Funcs)) }

// ErrFeature marks a module that uses a feature outside the supported set.
var ErrFeature = errors.New("unsupported WebAssembly feature")

// Parse decodes and bounds a whole module. b must start with the core
// module header.
func Parse(b []byte, lim Limits) (*Module, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" || b[4] != 1 || b[5] != 0 || b[6] != 0 || b[7] != 0 {
		return nil, errors.New("not a WebAssembly 1.0 core module header")
	}
	m := &Module{limits: lim}
	r := &reader{b: b, pos: 8}
	last := 0
	for r.len() > 0 {
		id, _ := r.byte()
		size, err := r.u32()
		if err != nil {
			return nil, fmt.Errorf("section header: %w", err)
		}
		body, err := r.bytes(uint64(size))
		if err != nil {
			return nil, fmt.Errorf("%s section of %d bytes overruns the module", sectionName(id), size)
		}
		if id == secCustom {
			if _, err := (&reader{b: body}).name("custom section name"); err != nil {
				return nil, fmt.Errorf("custom section: %w", err)
			}
			continue
		}
		order, ok := sectionOrder[id]
		if !ok {
			if id == secTag {
				return nil, fmt.Errorf("%w: tag section (exception handling)", ErrFeature)
			}
			return nil, fmt.Errorf("unknown section id %d", id)
		}
		if order <= last {
			return nil, fmt.Errorf("%s section out of order or repeated", sectionName(id))
		}
		last = order
		sr := &reader{b: body}
		if err := m.section(id, sr); err != nil {
			return nil, fmt.Errorf("%s section: %w", sectionName(id), err)
		}
		if sr.len() != 0 {
			return nil, fmt.Errorf("%s section: %d bytes left over after its contents", sectionName(id), sr.len())
		}
	}
	if len(m.Funcs) != len(m.Codes) {
		return nil, fmt.Errorf("function section declares %d functions but the code section has %d bodies", len(m.Funcs), len(m.Codes))
	}
	if m.DataCount != nil && !m.hasData && *m.DataCount != 0 {
		return nil, fmt.Errorf("data count section says %d segments but there is no data section", *m.DataCount)
	}
	product := uint64(m.NumFuncs()) * uint64(len(m.Types)+len(m.Imports)+len(m.Globals)+len(m.Exports))
	if err := check("CompileProduct", "functions × (types + imports + globals + exports)", product, lim.CompileProduct); err != nil {
		return nil, err
	}
	if err := m.checkIndices(); err != nil {
		return nil, err
	}
	return m, nil
}

func sectionName(id byte) string {
	if n, ok := sectionNames[id]; ok {
		return n
	}
	return fmt.Sprintf("id %d", id)
}

func (m *Module) section(id byte, r *reader) error {
	switch id {
	case secType:
		return m.parseTypes(r)
	case secImport:
		return m.parseImports(r)
	case secFunction:
		return m.parseFunctions(r)
	case secTable:
		return m.parseTables(r)
	case secMemory:
		return m.parseMemories(r)
	case secGlobal:
		return m.parseGlobals(r)
	case secExport:
		return m.parseExports(r)
	case secStart:
		idx, err := r.u32()
		m.Start = &idx
		return err
	case secElement:
		return m.parseElems(r)
	case secDataCount:
		n, err := r.u32()
		m.DataCount = &n
		return err
	case secCode:
		return m.parseCodes(r)
	case secData:
		return m.parseData(r)
	}
	return nil
}

func (m *Module) parseTypes(r *reader) error {
	n, err := r.count("type", 3)
	if err != nil {
		return err
	}
	if err := check("Types", "types", uint64(n), uint64(m.limits.Types)); err != nil {
		return err
	}
	m.Types = make([]FuncType, n)
	for i := range m.Types {
		form, err := r.byte()
		if err != nil {
			return err
		}
		if form != 0x60 {
			return fmt.Errorf("%w: type %d has form %#x (only function types, 0x60, are supported)", ErrFeature, i, form)
		}
		if m.Types[i].Params, err = valTypes(r, "Params", fmt.Sprintf("parameters of type %d", i), m.limits.Params); err != nil {
			return err
		}
		if m.Types[i].Results, err = valTypes(r, "Results", fmt.Sprintf("results of type %d", i), m.limits.Results); err != nil {
			return err
		}
	}
	return nil
}

func valTypes(r *reader, limit, what string, max uint32) ([]byte, error) {
	n, err := r.count(what, 1)
	if err != nil {
		return nil, err
	}
	if err := check(limit, what, uint64(n), uint64(max)); err != nil {
		return nil, err
	}
	b, _ := r.bytes(uint64(n))
	for _, t := range b {
		if !isValType(t) {
			return nil, fmt.Errorf("%s: unknown value type %#x", what, t)
		}
	}
	return b, nil
}

func isValType(t byte) bool {
	switch t {
	case typeI32, typeI64, typeF32, typeF64, typeV128, typeFuncref, typeExternref:
		return true
	}
	return false
}

func isRefType(t byte) bool { return t == typeFuncref || t == typeExternref }

func (m *Module) parseImports(r *reader) error {
	n, err := r.count("import", 4)
	if err != nil {
		return err
	}
	if err := check("Imports", "imports", uint64(n), uint64(m.limits.Imports)); err != nil {
		return err
	}
	m.Imports = make([]Import, n)
	for i := range m.Imports {
		im := &m.Imports[i]
		if im.Module, err = r.name("import module name"); err != nil {
			return err
		}
		if im.Name, err = r.name("import name"); err != nil {
			return err
		}
		if im.Kind, err = r.byte(); err != nil {
			return err
		}
		switch im.Kind {
		case KindFunc:
			if im.Type, err = r.u32(); err != nil {
				return err
			}
			if im.Type >= uint32(len(m.Types)) {
				return fmt.Errorf("import %d: type index %d out of range (%d types)", i, im.Type, len(m.Types))
			}
			m.NumImportedFuncs++
		case KindTable:
			var t Table
			if t, err = m.tableType(r, fmt.Sprintf("imported table %d", i)); err == nil {
				m.Tables = append(m.Tables, t)
			}
		case KindMemory:
			var mem Table
			if mem, err = m.memType(r); err == nil {
				m.Memories = append(m.Memories, mem)
			}
		case KindGlobal:
			_, _, err = globalType(r)
		case KindTag:
			return fmt.Errorf("%w: tag import (exception handling)", ErrFeature)
		default:
			return fmt.Errorf("import %d: unknown kind %d", i, im.Kind)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (m *Module) parseFunctions(r *reader) error {
	n, err := r.count("function", 1)
	if err != nil {
		return err
	}
	if err := check("Functions", "functions (imported and defined)", uint64(n)+uint64(m.NumImportedFuncs), uint64(m.limits.Functions)); err != nil {
		return err
	}
	m.Funcs = make([]uint32, n)
	for i := range m.Funcs {
		if m.Funcs[i], err = r.u32(); err != nil {
			return err
		}
		if m.Funcs[i] >= uint32(len(m.Types)) {
			return fmt.Errorf("function %d: type index %d out of range (%d types)", i, m.Funcs[i], len(m.Types))
		}
	}
	return nil
}

func (m *Module) parseTables(r *reader) error {
	n, err := r.count("table", 3)
	if err != nil {
		return err
	}
	if err := check("Tables", "tables", uint64(n)+uint64(len(m.Tables)), uint64(m.limits.Tables)); err != nil {
		return err
	}
	for i := uint32(0); i < n; i++ {
		t, err := m.tableType(r, fmt.Sprintf("table %d", len(m.Tables)))
		if err != nil {
			return err
		}
		m.Tables = append(m.Tables, t)
	}
	return nil
}

func (m *Module) tableType(r *reader, what string) (Table, error) {
	var t Table
	var err error
	if t.RefType, err = r.byte(); err != nil {
		return t, err
	}
	if !isRefType(t.RefType) {
		return t, fmt.Errorf("%s: unknown reference type %#x", what, t.RefType)
	}
	if t.Min, t.Max, t.HasMax, err = limitsType(r, false); err != nil {
		return t, fmt.Errorf("%s: %w", what, err)
	}
	return t, check("TableSize", "minimum size of "+what, uint64(t.Min), uint64(m.limits.TableSize))
}

func (m *Module) memType(r *reader) (Table, error) {
	var t Table
	var err error
	if t.Min, t.Max, t.HasMax, err = limitsType(r, true); err != nil {
		return t, fmt.Errorf("memory: %w", err)
	}
	if err := check("MemoryPages", "minimum memory pages", uint64(t.Min), uint64(m.limits.MemoryPages)); err != nil {
		return t, err
	}
	return t, check("Memories", "memories", uint64(len(m.Memories)+1), uint64(m.limits.Memories))
}

// limitsType reads a limits pair. Flags other than min / min+max (shared
// memory, 64-bit indices) belong to features the host does not enable.
func limitsType(r *reader, memory bool) (min, max uint32, hasMax bool, err error) {
	flags, err := r.byte()
	if err != nil {
		return 0, 0, false, err
	}
	if flags > 1 {
		feature := "64-bit indices or shared memory (threads, memory64)"
		if !memory {
			feature = "64-bit table indices (table64)"
		}
		return 0, 0, false, fmt.Errorf("%w: limits flags %#x: %s", ErrFeature, flags, feature)
	}
	if min, err = r.u32(); err != nil {
		return 0, 0, false, err
	}
	if flags == 1 {
		if max, err = r.u32(); err != nil {
			return 0, 0, false, err
		}
		if max < min {
			return 0, 0, false, fmt.Errorf("maximum %d is below minimum %d", max, min)
		}
		hasMax = true
	}
	return min, max, hasMax, nil
}

func (m *Module) parseMemories(r *reader) error {
	n, err := r.count("memory", 2)
	if err != nil {
		return err
	}
	for i := uint32(0); i < n; i++ {
		mem, err := m.memType(r)
		if err != nil {
			return err
		}
		m.Memories = append(m.Memories, mem)
	}
	return nil
}

func globalType(r *reader) (byte, bool, error) {
	t, err := r.byte()
	if err != nil {
		return 0, false, err
	}
	if !isValType(t) {
		return 0, false, fmt.Errorf("global: unknown value type %#x", t)
	}
	mut, err := r.byte()
	if err != nil {
		return 0, false, err
	}
	if mut > 1 {
		return 0, false, fmt.Errorf("global: mutability flag %#x", mut)
	}
	return t, mut == 1, nil
}

func (m *Module) parseGlobals(r *reader) error {
	n, err := r.count("global", 4)
	if err != nil {
		return err
	}
	if err := check("Globals", "globals", uint64(n)+uint64(m.numImported(KindGlobal)), uint64(m.limits.Globals)); err != nil {
		return err
	}
	m.Globals = make([]Global, n)
	for i := range m.Globals {
		g := &m.Globals[i]
		if g.Type, g.Mutable, err = globalType(r); err != nil {
			return err
		}
		if g.Init, err = constExpr(r); err != nil {
			return fmt.Errorf("global %d: %w", i, err)
		}
	}
	return nil
}

func (m *Module) numImported(kind byte) int {
	n := 0
	for _, im := range m.Imports {
		if im.Kind == kind {
			n++
		}
	}
	return n
}

func (m *Module) parseExports(r *reader) error {
	n, err := r.count("export", 3)
	if err != nil {
		return err
	}
	if err := check("Exports", "exports", uint64(n), uint64(m.limits.Exports)); err != nil {
		return err
	}
	m.Exports = make([]Export, n)
	seen := make(map[string]bool, n)
	for i := range m.Exports {
		e := &m.Exports[i]
		if e.Name, err = r.name("export name"); err != nil {
			return err
		}
		if seen[e.Name] {
			return fmt.Errorf("export name %q is used twice", clip(e.Name))
		}
		seen[e.Name] = true
		if e.Kind, err = r.byte(); err != nil {
			return err
		}
		if e.Kind > KindGlobal {
			return fmt.Errorf("export %q: unsupported kind %d", clip(e.Name), e.Kind)
		}
		if e.Index, err = r.u32(); err != nil {
			return err
		}
	}
	return nil
}

func (m *Module) parseElems(r *reader) error {
	n, err := r.count("element segment", 2)
	if err != nil {
		return err
	}
	if err := check("ElemSegments", "element segments", uint64(n), uint64(m.limits.ElemSegments)); err != nil {
		return err
	}
	m.Elems = make([]Elem, n)
	var total uint64
	for i := range m.Elems {
		if err := m.parseElem(r, &m.Elems[i], i); err != nil {
			return fmt.Errorf("segment %d: %w", i, err)
		}
		total += uint64(m.Elems[i].entries)
		if err := check("TotalElemEntries", "entries of all element segments", total, m.limits.TotalElemEntries); err != nil {
			return err
		}
	}
	return nil
}

func (m *Module) parseElem(r *reader, e *Elem, i int) error {
	var err error
	if e.Flags, err = r.u32(); err != nil {
		return err
	}
	if e.Flags > 7 {
		return fmt.Errorf("unknown element segment flags %d", e.Flags)
	}
	active := e.Flags&1 == 0
	explicitTable := e.Flags&2 != 0
	exprs := e.Flags&4 != 0
	if active && explicitTable {
		if e.Table, err = r.u32(); err != nil {
			return err
		}
	}
	if active {
		if e.Offset, err = constExpr(r); err != nil {
			return fmt.Errorf("offset: %w", err)
		}
	}
	if !active || explicitTable { // flags 1, 2, 3, 5, 6, 7 carry an elemkind or a reftype
		if e.Kind, err = r.byte(); err != nil {
			return err
		}
		if !exprs && e.Kind != 0 {
			return fmt.Errorf("element kind %#x (only funcref, 0x00, exists)", e.Kind)
		}
		if exprs && !isRefType(e.Kind) {
			return fmt.Errorf("unknown reference type %#x", e.Kind)
		}
	} else if exprs {
		e.Kind = typeFuncref
	}
	what := fmt.Sprintf("entries of element segment %d", i)
	if !exprs {
		n, err := r.count(what, 1)
		if err != nil {
			return err
		}
		if err := check("ElemEntries", what, uint64(n), uint64(m.limits.ElemEntries)); err != nil {
			return err
		}
		e.Funcs = make([]uint32, n)
		for j := range e.Funcs {
			if e.Funcs[j], err = r.u32(); err != nil {
				return err
			}
		}
		e.entries = int(n)
		return nil
	}
	n, err := r.count(what, 2)
	if err != nil {
		return err
	}
	if err := check("ElemEntries", what, uint64(n), uint64(m.limits.ElemEntries)); err != nil {
		return err
	}
	e.Exprs = make([][]byte, n)
	for j := range e.Exprs {
		if e.Exprs[j], err = constExpr(r); err != nil {
			return err
		}
	}
	e.entries = int(n)
	return nil
}

func (m *Module) parseCodes(r *reader) error {
	n, err := r.count("function body", 2)
	if err != nil {
		return err
	}
	if int(n) != len(m.Funcs) {
		return fmt.Errorf("%d bodies for %d declared functions", n, len(m.Funcs))
	}
	m.Codes = make([]Code, n)
	var total uint64
	for i := range m.Codes {
		size, err := r.u32()
		if err != nil {
			return err
		}
		what := fmt.Sprintf("body size of function %d", m.NumImportedFuncs+uint32(i))
		if err := check("BodySize", what, uint64(size), uint64(m.limits.BodySize)); err != nil {
			return err
		}
		b, err := r.bytes(uint64(size))
		if err != nil {
			return fmt.Errorf("body %d overruns the section", i)
		}
		if err := m.parseCode(&m.Codes[i], b, m.NumImportedFuncs+uint32(i)); err != nil {
			return err
		}
		total += m.Codes[i].NumLocals
		if err := check("TotalLocals", "declared locals of all functions", total, m.limits.TotalLocals); err != nil {
			return err
		}
	}
	return nil
}

func (m *Module) parseCode(c *Code, b []byte, fn uint32) error {
	r := &reader{b: b}
	groups, err := r.count("local declaration", 2)
	if err != nil {
		return fmt.Errorf("function %d: %w", fn, err)
	}
	params := uint64(len(m.Types[m.Funcs[fn-m.NumImportedFuncs]].Params))
	c.Locals = make([]LocalDecl, groups)
	for i := range c.Locals {
		if c.Locals[i].Count, err = r.u32(); err != nil {
			return fmt.Errorf("function %d: %w", fn, err)
		}
		if c.Locals[i].Type, err = r.byte(); err != nil {
			return fmt.Errorf("function %d: %w", fn, err)
		}
		if !isValType(c.Locals[i].Type) {
			return fmt.Errorf("function %d: local of unknown type %#x", fn, c.Locals[i].Type)
		}
		c.NumLocals += uint64(c.Locals[i].Count)
		what := fmt.Sprintf("locals (parameters included) in function %d", fn)
		if err := check("LocalsPerFunction", what, params+c.NumLocals, uint64(m.limits.LocalsPerFunction)); err != nil {
			return err
		}
	}
	c.Body = b[r.pos:]
	if len(c.Body) == 0 || c.Body[len(c.Body)-1] != opEnd {
		return fmt.Errorf("function %d: body does not end with end", fn)
	}
	return nil
}

func (m *Module) parseData(r *reader) error {
	m.hasData = true
	m.Data = r.b
	n, err := r.count("data segment", 2)
	if err != nil {
		return err
	}
	if err := check("DataSegments", "data segments", uint64(n), uint64(m.limits.DataSegments)); err != nil {
		return err
	}
	if m.DataCount != nil && *m.DataCount != n {
		return fmt.Errorf("data count section says %d segments, data section has %d", *m.DataCount, n)
	}
	for i := uint32(0); i < n; i++ {
		flags, err := r.u32()
		if err != nil {
			return err
		}
		switch flags {
		case 0:
			_, err = constExpr(r)
		case 1:
		case 2:
			var mem uint32
			if mem, err = r.u32(); err == nil && mem != 0 {
				err = fmt.Errorf("%w: data segment %d targets memory %d (multiple memories)", ErrFeature, i, mem)
			}
			if err == nil {
				_, err = constExpr(r)
			}
		default:
			err = fmt.Errorf("data segment %d: unknown flags %d", i, flags)
		}
		if err != nil {
			return err
		}
		size, err := r.u32()
		if err != nil {
			return err
		}
		if _, err := r.bytes(uint64(size)); err != nil {
			return fmt.Errorf("data segment %d of %d bytes overruns the section", i, size)
		}
	}
	return nil
}

// clip shortens a module-supplied name for an error message.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}
