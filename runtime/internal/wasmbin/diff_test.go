package wasmbin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	bt "github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin/wasmbintest"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// Differential testing: instrumentation must not change what a guest
// computes. gen builds a valid, terminating module from arbitrary bytes
// (loops with counters, ifs, forward branches, br_table, direct and
// indirect calls with a recursion budget, memory and bulk memory, a
// global, table.grow); the test runs it as received and instrumented (with
// tiny, varying budgets, so that check runs all the time) and compares the
// result, the memory and the global.

type genReader struct {
	b []byte
	i int
}

func (g *genReader) next(n int) int {
	if g.i >= len(g.b) || n <= 0 {
		return 0
	}
	v := int(g.b[g.i]) % n
	g.i++
	return v
}

type gen struct {
	r      *genReader
	m      *bt.Module
	nfuncs int
	fn     int // the function being generated
	stmts  int // statements left in this function
}

const (
	genParamAcc   = 0 // i64 input
	genParamDepth = 1 // i32 recursion budget
	genAcc        = 2 // i64 accumulator
	genCounter0   = 3 // i32 loop counters, one per nesting level
	genLevels     = 4
)

// genModule builds the module for input b.
func genModule(b []byte) []byte {
	g := &gen{r: &genReader{b: b}, m: &bt.Module{}}
	m := g.m
	g.nfuncs = 1 + g.r.next(5)
	ft := m.Type([]byte{typeI64, typeI32}, []byte{typeI64})
	m.Memory = &bt.Limits{Min: 1, Max: 2, HasMax: true}
	m.Tables = []bt.Table{{RefType: typeFuncref, Limits: bt.Limits{Min: uint32(g.nfuncs), Max: uint32(g.nfuncs + 8), HasMax: true}}}
	m.Globals = []bt.Global{{Type: typeI64, Mutable: true, Init: bt.Cat(bt.I64Const(0x1234), []byte{opEnd}), Export: "g"}}
	funcs := make([]uint32, g.nfuncs)
	for i := range funcs {
		funcs[i] = uint32(i)
	}
	m.Elems = []bt.Elem{{Offset: bt.Cat(bt.I32Const(0), []byte{opEnd}), Funcs: funcs}}
	for i := 0; i < g.nfuncs; i++ {
		g.fn, g.stmts = i, 12
		body := bt.Cat(bt.LocalGet(genParamAcc), bt.LocalSet(genAcc), g.block(0), bt.LocalGet(genAcc))
		f := bt.Func{Type: ft, Locals: []bt.Local{{Count: 1, Type: typeI64}, {Count: genLevels, Type: typeI32}}, Body: body}
		if i == 0 {
			f.Export = "f"
		}
		m.Funcs = append(m.Funcs, f)
	}
	// run() -> i64 calls f(seed, depth)
	run := bt.Cat(bt.I64Const(int64(g.r.next(256))), bt.I32Const(int32(1+g.r.next(3))), bt.Call(0))
	m.Funcs = append(m.Funcs, bt.Func{Type: m.Type(nil, []byte{typeI64}), Body: run, Export: "run"})
	return m.Bytes()
}

func (g *gen) block(level int) []byte {
	var b []byte
	for n := 1 + g.r.next(4); n > 0 && g.stmts > 0; n-- {
		g.stmts--
		b = append(b, g.stmt(level)...)
	}
	return b
}

func (g *gen) arith() []byte {
	return bt.Cat(bt.LocalGet(genAcc), bt.I64Const(int64(g.r.next(256))*2+1), []byte{bt.I64Mul}, bt.I64Const(int64(g.r.next(256))), []byte{bt.I64Add}, bt.LocalSet(genAcc))
}

func (g *gen) accBit(mask int64) []byte { // pushes i32: (acc & mask) != 0
	return bt.Cat(bt.LocalGet(genAcc), bt.I64Const(mask), []byte{0x83, 0x50, bt.I32Eqz}) // i64.and, i64.eqz, i32.eqz
}

func (g *gen) stmt(level int) []byte {
	switch g.r.next(11) {
	case 0:
		return g.arith()
	case 1: // the global
		return bt.Cat(bt.GlobalGet(0), bt.LocalGet(genAcc), []byte{bt.I64Xor}, bt.GlobalSet(0), bt.GlobalGet(0), bt.LocalGet(genAcc), []byte{bt.I64Add}, bt.LocalSet(genAcc))
	case 2: // memory store and load
		addr := int32(g.r.next(512) * 8)
		return bt.Cat(bt.I32Const(addr), bt.LocalGet(genAcc), []byte{0x37, 3, 0}, // i64.store align=3 offset=0
			bt.I32Const(int32(g.r.next(512)*8)), []byte{0x29, 3, 0}, bt.LocalGet(genAcc), []byte{bt.I64Add}, bt.LocalSet(genAcc))
	case 3:
		return ifElse(g.accBit(1<<g.r.next(8)), g.block(level), g.block(level))
	case 4: // a counted loop
		if level >= genLevels {
			return g.arith()
		}
		return countedLoop(uint32(genCounter0+level), int32(g.r.next(40)), g.block(level+1))
	case 5: // a block left early
		return bt.Cat([]byte{opBlock, 0x40}, g.block(level), g.accBit(3), bt.BrIf(0), g.block(level), []byte{opEnd})
	case 6: // br_table over three blocks
		return bt.Cat([]byte{opBlock, 0x40, opBlock, 0x40, opBlock, 0x40},
			bt.LocalGet(genAcc), []byte{0xa7}, bt.I32Const(3), []byte{0x70}, // i32.wrap_i64, i32.rem_u
			[]byte{opBrTable, 3, 0, 1, 2, 2}, []byte{opEnd},
			g.block(level), []byte{opEnd}, g.block(level), []byte{opEnd})
	case 7, 8: // a call, direct or indirect, if the depth allows
		target := g.r.next(g.nfuncs)
		var c []byte
		if g.r.next(2) == 0 {
			c = bt.Call(uint32(target))
		} else {
			c = bt.Cat(bt.I32Const(int32(target)), appendU32([]byte{opCallIndirect}, 0), []byte{0})
		}
		return ifElse(bt.Cat(bt.LocalGet(genParamDepth), []byte{bt.I32Eqz}), nil,
			bt.Cat(bt.LocalGet(genAcc), bt.LocalGet(genParamDepth), bt.I32Const(1), []byte{bt.I32Sub}, c, bt.LocalSet(genAcc)))
	case 9: // bulk memory
		dst, src, n := int32(g.r.next(4096)), int32(g.r.next(4096)), int32(g.r.next(300))
		if g.r.next(2) == 0 {
			return bt.Cat(bt.I32Const(dst), bt.I32Const(src&0xff), bt.I32Const(n), []byte{opMisc, miscMemoryFill, 0})
		}
		return bt.Cat(bt.I32Const(dst), bt.I32Const(src), bt.I32Const(n), []byte{opMisc, miscMemoryCopy, 0, 0})
	default: // table.grow within the declared maximum, and its result
		return bt.Cat([]byte{opRefNull, typeFuncref}, bt.I32Const(int32(g.r.next(3))), []byte{opMisc, miscTableGrow, 0},
			[]byte{0xac}, bt.LocalGet(genAcc), []byte{bt.I64Add}, bt.LocalSet(genAcc)) // i64.extend_i32_s
	}
}

// outcome is what a run computed.
type outcome struct {
	result uint64
	global uint64
	memory [32]byte
	err    string
}

// The generator can nest counted loops and calls deep enough for a module
// to run for seconds (with a check every few hundred instructions, four
// times longer), more than the fuzzer allows one input. The instrumented run is
// therefore metered first: check counts the instructions it has granted
// and the times it was called, and past either cap it stops the run, and
// the input is not compared. Both counts are deterministic, so a given
// input is always compared or always left out; the caps keep the plain
// run to about maxGranted instructions.
const (
	maxGranted = 50_000_000 // instructions granted by check over one run
	maxChecks  = 2_000_000  // calls of check over one run
)

// errTooLong stops a metered run past its caps.
var errTooLong = errors.New("differential test: the module runs too long to compare")

// runOutcome runs wasm's run export; instrumented says that wasm imports
// check, which then grants budgets in turn and meters the run (see
// maxGranted). stopped reports that the meter stopped the run at its caps.
func runOutcome(t testing.TB, wasm []byte, instrumented bool, budgets []byte) (o outcome, stopped bool) {
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCoreFeatures(api.CoreFeaturesV2))
	defer r.Close(ctx)
	if instrumented {
		n, granted := 0, int64(0)
		_, err := r.NewHostModuleBuilder(PreemptModule).NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, _ api.Module, stack []uint64) {
				b := int64(1)
				if len(budgets) > 0 {
					b = int64(budgets[n%len(budgets)]) + 1
				}
				n++
				granted += b
				if n > maxChecks || granted > maxGranted {
					stopped = true
					panic(errTooLong)
				}
				stack[0] = uint64(b)
			}), nil, []api.ValueType{api.ValueTypeI64}).Export(PreemptFunc).Instantiate(ctx)
		require.NoError(t, err)
	}
	inst, err := r.Instantiate(ctx, wasm)
	require.NoError(t, err, "the generated module must be valid")
	res, err := inst.ExportedFunction("run").Call(ctx)
	if stopped {
		return o, true
	}
	if err != nil {
		o.err = err.Error()
		return o, false
	}
	mem, _ := inst.ExportedMemory("memory").Read(0, inst.ExportedMemory("memory").Size())
	o.result, o.global, o.memory = res[0], inst.ExportedGlobal("g").Get(), sha256.Sum256(mem)
	return o, false
}

// checkSame builds the module for input, instruments it with budgets, and
// requires both to compute the same; it reports false, having compared
// nothing, when the module runs past the meter's caps.
func checkSame(t testing.TB, input, budgets []byte) bool {
	wasm := genModule(input)
	mod, err := Parse(wasm, DefaultLimits())
	require.NoError(t, err)
	out, err := mod.Instrument(Options{Budget: 1 + int64(len(budgets))})
	require.NoError(t, err)
	again, err := Parse(out, DefaultLimits())
	require.NoError(t, err, "the instrumented module must parse again")
	require.Len(t, again.Imports, len(mod.Imports)+1)
	got, stopped := runOutcome(t, out, true, budgets)
	if stopped {
		return false
	}
	want, _ := runOutcome(t, wasm, false, nil)
	require.Equal(t, want, got, "instrumentation changed what the module computes")
	return true
}

func TestInstrumentSameResults(t *testing.T) {
	compared := 0
	for i := range 300 {
		seed := sha256.Sum256(fmt.Appendf(nil, "seed %d", i))
		input := bytes.Repeat(seed[:], 8)
		if checkSame(t, input, seed[:i%7]) {
			compared++
		}
	}
	// The meter must leave out only the rare runaway module.
	require.GreaterOrEqual(t, compared, 290, "modules compared of 300")
}

// FuzzInstrumentSameResults is the differential fuzz target: any input
// builds a module; instrumenting it must not change its outcome.
func FuzzInstrumentSameResults(f *testing.F) {
	f.Add([]byte{}, []byte{})
	f.Add([]byte("\x05\x04\x04\x04\x04\x03\x07\x07"), []byte{0})
	f.Add(bytes.Repeat([]byte{4, 39, 7, 1, 3}, 40), []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, input, budgets []byte) {
		if len(input) > 4096 || len(budgets) > 64 {
			return
		}
		if !checkSame(t, input, budgets) {
			t.Skip("the module runs past the meter's caps")
		}
	})
}

// TestInstrumentSameResultsMetersRunaways holds the meter to an input the
// fuzzer found (testdata/fuzz): its module runs 5 s plain and 21 s with a
// check every 231 instructions, past the fuzzer's patience for one input.
// Metered, it stops within the caps and is left out.
func TestInstrumentSameResultsMetersRunaways(t *testing.T) {
	require.False(t, checkSame(t, []byte("000\x19$07a0000A0(0020202A12a0000A"), []byte("\xe6")))
}
