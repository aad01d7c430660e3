package wasmbin

import (
	"errors"
	"fmt"
	"math"
)

// The instrumentation that lets a host stop any guest.
//
// The rewritten module counts down a budget kept in a global of its own. A
// checkpoint subtracts a weight and, when the budget is spent, calls the
// host's check function, which may trap the guest (its deadline passed, its
// call was canceled) and otherwise returns a fresh budget:
//
//	global.get $budget  i64.const W  i64.sub  global.set $budget
//	global.get $budget  i64.const 0  i64.le_s
//	if  call $check  global.set $budget  end
//
// Checkpoints sit at every function entry, at the start of every loop body,
// after every call of a function defined in the module (the return point),
// and wherever a straight run of code would otherwise exceed a bound. The
// weight of a checkpoint is the largest number of instructions any path can
// execute from it before it reaches the next checkpoint (a longest path in
// the acyclic graph that remains once loop headers are checkpoints), so the
// budget bounds the instructions run between two calls of check, whatever
// the control flow: loops, loop-free recursion, mutual recursion, br_table
// state machines, deep unwinding of returns. Bulk operations (memory.fill,
// copy, init; table.grow, fill, copy, init; memory.grow) are charged by
// their count operand at run time.
//
// The check function is a new import appended after the module's own
// function imports, and the budget a new global appended after its own;
// Parse has checked that no instruction, export, element or start refers
// past the module's own index spaces, so neither can be reached, read,
// called or exported by the guest. Function indices of defined functions
// shift by one; every reference to them is rewritten.

// PreemptModule and PreemptFunc name the import Instrument adds. Guests
// cannot import it themselves: the host refuses any import outside its ABI.
const (
	PreemptModule = "mcp-wasm:preempt"
	PreemptFunc   = "check"
)

// Instrumentation bounds, in instruction units.
const (
	// MaxSegment is the largest weight of one checkpoint: longer straight
	// runs get extra checkpoints.
	MaxSegment = 1 << 12
	// DefaultBudget is what check returns: the instructions a guest runs
	// between two checks. At well under a nanosecond per unit, a check runs
	// every few tens of microseconds, so a spinning guest reaches Go code
	// (where the Go scheduler and garbage collector can stop it) and sees its
	// deadline within about a millisecond at worst (slow units: cache misses,
	// divisions), while the check itself costs nothing measurable.
	DefaultBudget = 1 << 17
)

// Options configure Instrument.
type Options struct {
	// Budget is the initial value of the budget global. Default DefaultBudget.
	Budget int64
}

// ErrNonFuncImport is returned for modules that import anything but
// functions, which Instrument does not rewrite.
var ErrNonFuncImport = errors.New("imports other than functions are not supported")

// Instrument returns the module rewritten with preemption checkpoints and
// with every table's maximum lowered to what Limits allow, so that
// table.grow fails (returns -1) instead of allocating past the host's
// budget. Custom sections are dropped, and data segments coalesced where
// nothing can tell (data.go).
func (m *Module) Instrument(opt Options) ([]byte, error) {
	if opt.Budget <= 0 {
		opt.Budget = DefaultBudget
	}
	for _, im := range m.Imports {
		if im.Kind != KindFunc {
			return nil, fmt.Errorf("%w: import %q %q", ErrNonFuncImport, clip(im.Module), clip(im.Name))
		}
	}
	tables, err := m.boundedTables()
	if err != nil {
		return nil, err
	}
	nImp := m.NumImportedFuncs
	shift := func(f uint32) uint32 {
		if f >= nImp {
			return f + 1
		}
		return f
	}
	checkType := uint32(len(m.Types))
	types := append(append([]FuncType(nil), m.Types...), FuncType{Results: []byte{typeI64}})
	imports := append(append([]Import(nil), m.Imports...), Import{Module: PreemptModule, Name: PreemptFunc, Kind: KindFunc, Type: checkType})
	budget := m.numGlobals()
	globals := append(append([]Global(nil), m.Globals...), Global{Type: typeI64, Mutable: true, Init: append(appendS64([]byte{opI64Const}, opt.Budget), opEnd)})

	ix := &instrumenter{m: m, shift: shift, check: nImp, budget: budget}
	if err := ix.findLeaves(); err != nil {
		return nil, err
	}
	out := []byte("\x00asm\x01\x00\x00\x00")
	out = appendSection(out, secType, encodeTypes(types))
	out = appendSection(out, secImport, encodeImports(imports))
	out = appendSection(out, secFunction, encodeU32s(m.Funcs, func(t uint32) uint32 { return t }))
	if len(tables) > 0 {
		out = appendSection(out, secTable, encodeTables(tables))
	}
	if len(m.Memories) > 0 {
		out = appendSection(out, secMemory, encodeMemories(m.Memories))
	}
	out = appendSection(out, secGlobal, encodeGlobals(globals, shift))
	if len(m.Exports) > 0 {
		out = appendSection(out, secExport, encodeExports(m.Exports, shift))
	}
	if m.Start != nil {
		out = appendSection(out, secStart, appendU32(nil, shift(*m.Start)))
	}
	if len(m.Elems) > 0 {
		out = appendSection(out, secElement, encodeElems(m.Elems, shift))
	}
	if m.DataCount != nil {
		out = appendSection(out, secDataCount, appendU32(nil, *m.DataCount))
	}
	code, err := ix.code()
	if err != nil {
		return nil, err
	}
	out = appendSection(out, secCode, code)
	if m.hasData {
		out = appendSection(out, secData, m.coalescedData()) // data.go
	}
	return out, nil
}

// boundedTables returns the tables with the maximum the host enforces: the
// declared maximum, at most Limits.TableSize, and together at most
// Limits.TotalTableSize, sharing what the minimums leave evenly.
func (m *Module) boundedTables() ([]Table, error) {
	var sumMin uint64
	for _, t := range m.Tables {
		sumMin += uint64(t.Min)
	}
	if err := check("TotalTableSize", "sum of the minimum sizes of all tables", sumMin, m.limits.TotalTableSize); err != nil {
		return nil, err
	}
	out := append([]Table(nil), m.Tables...)
	if len(out) == 0 {
		return out, nil
	}
	share := (m.limits.TotalTableSize - sumMin) / uint64(len(out))
	for i := range out {
		t := &out[i]
		max := uint64(math.MaxUint32)
		if t.HasMax {
			max = uint64(t.Max)
		}
		max = min(max, uint64(m.limits.TableSize), uint64(t.Min)+share)
		t.Max, t.HasMax = uint32(max), true
	}
	return out, nil
}

// instrumenter rewrites the code section.
type instrumenter struct {
	m      *Module
	shift  func(uint32) uint32
	check  uint32 // function index of the check import
	budget uint32 // global index of the budget
	info   bodyInfo
	flow   flow
	leaves leaves
}

func (ix *instrumenter) code() ([]byte, error) {
	size := 0
	for _, c := range ix.m.Codes {
		size += len(c.Body)
	}
	out := appendU32(make([]byte, 0, size+size/4+64*len(ix.m.Codes)), uint32(len(ix.m.Codes)))
	for i := range ix.m.Codes {
		var err error
		if out, err = ix.function(out, i); err != nil {
			return nil, fmt.Errorf("function %d: %w", ix.m.NumImportedFuncs+uint32(i), err)
		}
	}
	return out, nil
}
