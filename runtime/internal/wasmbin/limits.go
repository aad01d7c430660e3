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
	Types             uint32 // entries of the type section
	Functions         uint32 // imported plus defined functions
	Imports           uint32
	Exports           uint32
	Globals           uint32
	DataSegments      uint32
	ElemSegments      uint32
	Tables            uint32
	Memories          uint32
	Params            uint32 // parameters of one function type
	Results           uint32 // results of one function type
	LocalsPerFunction uint32 // parameters plus declared locals of one function
	TotalLocals       uint64 // declared locals of all functions together
	BodySize          uint32 // bytes of one function body, locals included
	TableSize         uint32 // the largest minimum size, and the enforced maximum, of one table
	TotalTableSize    uint64 // the sum of the enforced maximum sizes of all tables
	ElemEntries       uint32 // entries of one element segment
	TotalElemEntries  uint64 // entries of all element segments together
	MemoryPages       uint32 // declared minimum of the memory, in 64 KiB pages
}

// DefaultLimits returns the host's limits. The browser values apply as they
// are, except where a module can make wazero allocate far more than its own
// size:
//   - TotalLocals: wazero keeps one byte per declared local for every
//     function; 50,000 locals per function times a million functions would be
//     50 GB from a module of a few MB. 4 million is 10 times what the largest
//     real toolchain output we measured declares (see RATIONALE.md).
//   - TableSize and TotalTableSize: each table entry is 8 bytes of host memory
//     in every instance. The browsers' 10 million entries (80 MB) per table
//     becomes 1 million (8 MB), and 2 million over all tables (16 MB).
//   - Tables: browsers allow 100,000; real modules have one. 100 is plenty.
//   - ElemEntries and TotalElemEntries: 10 million in browsers; every entry
//     ends up in a table, so the table budget bounds them: 2 million.
func DefaultLimits() Limits {
	return Limits{
		Types:             1_000_000,
		Functions:         1_000_000,
		Imports:           100_000,
		Exports:           100_000,
		Globals:           1_000_000,
		DataSegments:      100_000,
		ElemSegments:      100_000,
		Tables:            100,
		Memories:          1,
		Params:            1_000,
		Results:           1_000,
		LocalsPerFunction: 50_000,
		TotalLocals:       4_000_000,
		BodySize:          7_654_321,
		TableSize:         1_000_000,
		TotalTableSize:    2_000_000,
		ElemEntries:       2_000_000,
		TotalElemEntries:  2_000_000,
		MemoryPages:       65_536,
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
