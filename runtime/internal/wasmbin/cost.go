package wasmbin

import "fmt"

// The compiler-cost model: what wazero's optimizing compiler (v1.12,
// amd64) spends on a module, estimated from its instructions before any
// compiler sees it. The weights were measured by compiling generated
// functions of one instruction kind, instrumented as the host runs them,
// at two sizes each (peak RSS and CPU time, one process per module; see
// abi/ABI.md §9.1 for the figures). They are per instruction, not per
// byte: a one-byte i32.eqz costs the compiler as much as a five-byte
// i32.const.
//
// Memory: a function's compilation holds its working set (SSA, register
// allocation, machine code) until the function is done; two functions
// compile at once; the machine code stays, about an eighth of the working
// set. Time: linear in the instructions, plus a term in the square of the
// function's branches (wazero's passes over basic blocks are quadratic).
const (
	memPlain  = 350    // bytes per plain instruction (a chain of i32.eqz: 340; const, drop: 115)
	memBranch = 2_400  // block, loop, if, br_if (nested blocks: 2,350)
	memLabel  = 2_700  // per br_table label
	memCall   = 13_000 // call, call_indirect, with the instrumentation's checkpoint after each (12,800)
	memBulk   = 4_200  // memory.grow and the bulk operations, with their budget charge (4,100)
	memParam  = 48     // per parameter or result of a function type (40 to 43)

	// What stays once a function is compiled: its machine code.
	keepPlain  = 40    // a chain of i32.eqz: 36
	keepBranch = 300   // nested blocks: 290
	keepCall   = 1_600 // 1,600
	keepBulk   = 600

	timePlain  = 700    // ns of CPU per plain instruction (a chain of i32.eqz: 700; const, drop: 200)
	timeCall   = 5_000  // ns per call, besides its weight in the quadratic term
	timeBulk   = 20_000 // ns per memory.grow or bulk operation
	timeBranch = 5      // ns per squared branch weight of a function (8,000 nested blocks: 0.32 s)
	timeParam  = 1      // ns per squared arity of a function type (3,000 types of 1,000 params: 1.9 s)

	// A call weighs callWeight tenths of a branch in the quadratic term:
	// 8,000 calls took 1.5 s of CPU, 4,000 0.47 s (24 ns per call squared).
	callWeight = 22
)

// funcCost is the estimate for one function.
type funcCost struct {
	mem      uint64 // bytes of compiler working set
	keep     uint64 // bytes of machine code
	linear   uint64 // ns, the linear part
	branches uint64 // branch weight in tenths, for the quadratic part
	calls    uint64
	bulk     uint64
	plain    uint64
}

// add charges one decoded instruction.
func (c *funcCost) add(in *inst) {
	switch in.kind {
	case kBlock, kLoop, kIf, kBrIf:
		c.mem += memBranch
		c.keep += keepBranch
		c.linear += timePlain
		c.branches += 10
	case kBrTable:
		c.mem += memLabel * uint64(in.n)
		c.keep += keepBranch * uint64(in.n)
		c.linear += timePlain * uint64(in.n)
		c.branches += 10 * uint64(in.n)
	case kCall, kCallIndirect:
		c.mem += memCall
		c.keep += keepCall
		c.linear += timeCall
		c.branches += callWeight
		c.calls++
	case kBulk:
		c.mem += memBulk
		c.keep += keepBulk
		c.linear += timeBulk
		c.bulk++
	default:
		c.mem += memPlain
		c.keep += keepPlain
		c.linear += timePlain
		c.plain++
	}
}

// time is the function's estimated compile time in ns.
func (c *funcCost) time() uint64 {
	b := c.branches / 10
	return c.linear + timeBranch*b*b
}

// describe names what the function is made of, for errors.
func (c *funcCost) describe() string {
	return fmt.Sprintf("%d calls, %d memory.grow or bulk operations, %d branches, %d other instructions",
		c.calls, c.bulk, (c.branches-c.calls*callWeight)/10, c.plain)
}

// Cost is a module's estimated compile cost.
type Cost struct {
	MaxFunctionMemory uint64 // bytes: the largest function's working set
	Memory            uint64 // bytes: two largest working sets, the machine code, the type preambles
	Time              uint64 // ns of CPU, all functions and types
	keep              uint64
	top               [2]uint64
}

// Cost returns the module's estimate, as Parse computed it.
func (m *Module) Cost() Cost { return m.cost }

// addFunc adds a function's cost and checks the per-function bound.
func (m *Module) addFunc(fn uint32, c *funcCost) error {
	what := fmt.Sprintf("estimated compiler memory for function %d (%s)", fn, c.describe())
	if err := check("FunctionCompileMemory", what, c.mem, m.limits.FunctionCompileMemory); err != nil {
		return err
	}
	k := &m.cost
	k.keep += c.keep
	k.Time += c.time()
	switch {
	case c.mem > k.top[0]:
		k.top[1], k.top[0] = k.top[0], c.mem
	case c.mem > k.top[1]:
		k.top[1] = c.mem
	}
	k.MaxFunctionMemory = k.top[0]
	return nil
}

// checkCost adds the type section and checks the module-wide bounds.
func (m *Module) checkCost() error {
	k := &m.cost
	var arity uint64
	for _, t := range m.Types {
		n := uint64(len(t.Params) + len(t.Results))
		arity += n
		k.Time += timeParam * n * n
	}
	k.Memory = k.top[0] + k.top[1] + k.keep + memParam*arity
	if err := check("CompileMemory", "estimated compiler memory for the module, in bytes", k.Memory, m.limits.CompileMemory); err != nil {
		return err
	}
	return check("CompileTime", "estimated compile time of the module, in ms", k.Time/1e6, m.limits.CompileTime/1e6)
}
