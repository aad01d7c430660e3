package wasmbin

import "fmt"

// Limits are the structural bounds a module must stay within before any
// compiler sees it. A module over one is refused with a *LimitError naming
// the limit and the count.
//
// The per-kind counts follow the implementation limits that browsers enforce
// for the WebAssembly JS API (https://webassembly.github.io/spec/js-api/#limits).
// Where wazero turns a few bytes of a module into much more host memory
// (locals, table entries, element entries), the host adds module-wide totals
// of its own; see DefaultLimits.
type Limits struct {
	Types               uint32 // entries of the type section
	Functions           uint32 // imported plus defined functions
	Imports             uint32
	Exports             uint32
	Globals             uint32
	DataSegments        uint32
	ElemSegments        uint32
	Tables              uint32
	Memories            uint32
	Params              uint32 // parameters of one function type
	Results             uint32 // results of one function type
	LocalsPerFunction   uint32 // parameters plus declared locals of one function
	TotalLocals         uint64 // declared locals of all functions together
	BodySize            uint32 // bytes of one function body, locals included
	BranchesPerFunction uint32 // block, loop, if, br_if, br_table labels, call and call_indirect of one body
	// CompileProduct bounds functions × (types + imports + globals +
	// exports): wazero does work in proportion to the module's types,
	// imports, globals and exports for every function it compiles or
	// describes.
	CompileProduct   uint64
	TableSize        uint32 // the largest minimum size, and the enforced maximum, of one table
	TotalTableSize   uint64 // the sum of the enforced maximum sizes of all tables
	ElemEntries      uint32 // entries of one element segment
	TotalElemEntries uint64 // entries of all element segments together
	MemoryPages      uint32 // declared minimum of the memory, in 64 KiB pages
	// The compiler-cost model's bounds (cost.go): estimated compiler memory
	// of one function and of the module, in bytes, and estimated compile
	// time of the module, in ns of CPU.
	FunctionCompileMemory uint64
	CompileMemory         uint64
	CompileTime           uint64
}

// DefaultLimits returns the host's limits. The browser values apply as they
// are, except where a module can make wazero allocate far more than its own
// size (the host costs below were measured with runtime's extreme-module
// test, one mcp-wasm process per module):
//   - Functions, Types, Globals: a million functions cost 570 MiB of host
//     memory, a million types 546 MiB, a million globals 291 MiB. 250,000
//     functions (the Go toolchain's output has about 2,700 for a small
//     program and tens of thousands for a large one), 100,000 types and
//     100,000 globals keep each near 150 MiB or below.
//   - CompileProduct (no browser equivalent): wazero spends about 4 ns per
//     function per type, import, global and export of the module (125,000
//     functions with 50,000 globals, or types, or imports: 23 s to over a
//     minute; 100,000 exported functions: 7 s). 10^8 bounds that near half a
//     second; the Go toolchain's output is at 160,000, a large Rust program
//     near 2×10^7.
//   - TotalLocals: wazero keeps one byte per declared local for every
//     function; 50,000 locals per function times 250,000 functions would be
//     12.5 GB from a module of a few MB. 4 million is 10 times what the largest
//     real toolchain output we measured declares (see RATIONALE.md).
//   - TableSize and TotalTableSize: each table entry is 8 bytes of host memory
//     in every instance. The browsers' 10 million entries (80 MB) per table
//     becomes 1 million (8 MB), and 2 million over all tables (16 MB).
//   - Tables: browsers allow 100,000; real modules have one. 100 is plenty.
//   - ElemEntries and TotalElemEntries: 10 million in browsers; every entry
//     ends up in a table, so the table budget bounds them: 2 million.
//   - BodySize: 7,654,321 bytes in browsers, which compile lazily and in
//     tiers. wazero compiles every function ahead of time, holding about 50
//     bytes of compiler memory per body byte while it does: 2 MiB bounds that
//     at about 100 MB per compilation worker. The largest body of the Go
//     toolchain's output we measured is 29 KB.
//   - BranchesPerFunction (no browser equivalent): the time wazero's
//     compiler spends on one function grows with the square of its basic
//     blocks (8,000 ifs: 1 s; 16,000: 5 s), a br_table costs it about 2.7 KB
//     of memory per label (400,000 labels: 1 GB and 27 s), and a function's
//     compilation cannot be interrupted. Calls count because instrumentation
//     puts a checkpoint after each, br_table labels one each. 10,000 is 4.6
//     times the largest function of the Go toolchain's output we measured
//     (2,153, in every Go guest).
func DefaultLimits() Limits {
	return Limits{
		Types:               100_000,
		Functions:           250_000,
		Imports:             100_000,
		Exports:             100_000,
		Globals:             100_000,
		DataSegments:        100_000,
		ElemSegments:        100_000,
		Tables:              100,
		Memories:            1,
		Params:              1_000,
		Results:             1_000,
		LocalsPerFunction:   50_000,
		TotalLocals:         4_000_000,
		BodySize:            2 << 20,
		BranchesPerFunction: 10_000,
		CompileProduct:      100_000_000,
		TableSize:           1_000_000,
		TotalTableSize:      2_000_000,
		ElemEntries:         2_000_000,
		TotalElemEntries:    2_000_000,
		MemoryPages:         65_536,

		FunctionCompileMemory: 128 << 20,
		CompileMemory:         448 << 20,
		CompileTime:           20e9,
	}
}

// LimitError is a module over one of its Limits.
type LimitError struct {
	Limit string // the limit's name, as in Limits ("LocalsPerFunction")
	What  string // what was counted, in words ("locals in function 3")
	Count uint64 // the module's count
	Max   uint64 // the limit
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: %d, over the limit of %d (%s)", e.What, e.Count, e.Max, e.Limit)
}

// check returns a *LimitError when n > max.
func check(limit, what string, n, max uint64) error {
	if n > max {
		return &LimitError{Limit: limit, What: what, Count: n, Max: max}
	}
	return nil
}
