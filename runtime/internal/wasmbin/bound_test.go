package wasmbin

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	bt "github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin/wasmbintest"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// The property the instrumentation exists for: whatever the control flow,
// a guest never runs more than Budget + MaxSegment instructions between two
// calls of check. Each program below does its work in "work units" that
// bump an exported counter (4 instructions each); the test's check function
// reads the counter, so the largest difference between two checks is
// measured, not timed.

const workInstrs = 4

// work is one work unit: $work += 1 (global 0).
func work() []byte {
	return bt.Cat(bt.GlobalGet(0), bt.I64Const(1), []byte{bt.I64Add}, bt.GlobalSet(0))
}

func works(n int) []byte {
	var b []byte
	for range n {
		b = append(b, work()...)
	}
	return b
}

// countedLoop runs body n times, with local l as the counter.
func countedLoop(l uint32, n int32, body []byte) []byte {
	return bt.Cat(bt.I32Const(n), bt.LocalSet(l),
		[]byte{opBlock, 0x40, opLoop, 0x40},
		bt.LocalGet(l), []byte{bt.I32Eqz}, bt.BrIf(1),
		body,
		bt.LocalGet(l), bt.I32Const(1), []byte{bt.I32Sub}, bt.LocalSet(l),
		bt.Br(0),
		[]byte{opEnd, opEnd})
}

// ifElse is if (local l) then a else b (no values).
func ifElse(cond, a, b []byte) []byte {
	return bt.Cat(cond, []byte{opIf, 0x40}, a, []byte{opElse}, b, []byte{opEnd})
}

type boundCase struct {
	name  string
	build func(m *bt.Module) // adds functions; the one exported "run" is called
}

func newBoundModule() *bt.Module {
	m := &bt.Module{}
	m.Globals = []bt.Global{{Type: typeI64, Mutable: true, Init: bt.Cat(bt.I64Const(0), []byte{opEnd}), Export: "work"}}
	return m
}

var i32p = []byte{typeI32}
var i32l = []bt.Local{{Count: 2, Type: typeI32}}

var boundCases = []boundCase{
	{"loop", func(m *bt.Module) {
		m.Funcs = append(m.Funcs, bt.Func{Type: m.Type(nil, nil), Locals: i32l, Export: "run", Body: countedLoop(0, 200000, works(3))})
	}},
	{"exprec", func(m *bt.Module) { // f(n): if n { f(n-1); f(n-1) }; work
		f := uint32(len(m.Funcs))
		body := bt.Cat(ifElse(bt.LocalGet(0), bt.Cat(bt.LocalGet(0), bt.I32Const(1), []byte{bt.I32Sub}, bt.Call(f), bt.LocalGet(0), bt.I32Const(1), []byte{bt.I32Sub}, bt.Call(f)), nil), work())
		m.Funcs = append(m.Funcs, bt.Func{Type: m.Type(i32p, nil), Body: body})
		m.Funcs = append(m.Funcs, bt.Func{Type: m.Type(nil, nil), Export: "run", Body: bt.Cat(bt.I32Const(16), bt.Call(f))})
	}},
	{"mutual", func(m *bt.Module) {
		a, b := uint32(len(m.Funcs)), uint32(len(m.Funcs)+1)
		rec := func(g uint32) []byte {
			return bt.Cat(ifElse(bt.LocalGet(0), bt.Cat(bt.LocalGet(0), bt.I32Const(1), []byte{bt.I32Sub}, bt.Call(g), bt.LocalGet(0), bt.I32Const(1), []byte{bt.I32Sub}, bt.Call(g)), nil), work())
		}
		m.Funcs = append(m.Funcs, bt.Func{Type: m.Type(i32p, nil), Body: rec(b)}, bt.Func{Type: m.Type(i32p, nil), Body: rec(a)})
		m.Funcs = append(m.Funcs, bt.Func{Type: m.Type(nil, nil), Export: "run", Body: bt.Cat(bt.I32Const(16), bt.Call(a))})
	}},
	{"unwind", func(m *bt.Module) { // f(n): if n { f(n-1) }; 300 work units on the way back
		f := uint32(len(m.Funcs))
		body := bt.Cat(ifElse(bt.LocalGet(0), bt.Cat(bt.LocalGet(0), bt.I32Const(1), []byte{bt.I32Sub}, bt.Call(f)), nil), works(300))
		m.Funcs = append(m.Funcs, bt.Func{Type: m.Type(i32p, nil), Body: body})
		m.Funcs = append(m.Funcs, bt.Func{Type: m.Type(nil, nil), Export: "run", Body: bt.Cat(bt.I32Const(3000), bt.Call(f))})
	}},
	{"straight", func(m *bt.Module) { // 5000 work units, no loop, no call: longer than MaxSegment
		m.Funcs = append(m.Funcs, bt.Func{Type: m.Type(nil, nil), Export: "run", Body: works(5000)})
	}},
	{"brtable", func(m *bt.Module) { // a state machine over 3 states, 100000 steps
		body := bt.Cat(bt.I32Const(100000), bt.LocalSet(1),
			[]byte{opBlock, 0x40, opLoop, 0x40},
			bt.LocalGet(1), []byte{bt.I32Eqz}, bt.BrIf(1),
			bt.LocalGet(1), bt.I32Const(1), []byte{bt.I32Sub}, bt.LocalSet(1),
			[]byte{opBlock, 0x40, opBlock, 0x40, opBlock, 0x40},
			bt.LocalGet(0), []byte{opBrTable}, appendU32(nil, 2), appendU32(nil, 0), appendU32(nil, 1), appendU32(nil, 2),
			[]byte{opEnd}, work(), bt.I32Const(1), bt.LocalSet(0), bt.Br(1), // state 0 -> 1, to the loop
			[]byte{opEnd}, works(2), bt.I32Const(2), bt.LocalSet(0), bt.Br(0), // state 1 -> 2
			[]byte{opEnd}, works(3), bt.I32Const(0), bt.LocalSet(0), bt.Br(0), // state 2 -> 0
			[]byte{opEnd, opEnd})
		m.Funcs = append(m.Funcs, bt.Func{Type: m.Type(nil, nil), Locals: i32l, Export: "run", Body: body})
	}},
	{"skip", func(m *bt.Module) { // a forward branch that jumps over a loop into a long run
		inner := bt.Cat([]byte{opLoop, 0x40}, work(), []byte{opEnd})
		body := countedLoop(0, 2000, bt.Cat(
			[]byte{opBlock, 0x40}, bt.I32Const(1), bt.BrIf(0), inner, []byte{opEnd},
			works(500)))
		m.Funcs = append(m.Funcs, bt.Func{Type: m.Type(nil, nil), Locals: i32l, Export: "run", Body: body})
	}},
	{"ifs", func(m *bt.Module) { // loops in then and else arms
		arm := countedLoop(1, 50, works(2))
		body := countedLoop(0, 4000, ifElse(bt.Cat(bt.LocalGet(0), bt.I32Const(1), []byte{0x71}), arm, bt.Cat(arm, works(1))))
		m.Funcs = append(m.Funcs, bt.Func{Type: m.Type(nil, nil), Locals: i32l, Export: "run", Body: body})
	}},
	{"nested", func(m *bt.Module) { // the inner loop's only back-edge goes to the outer loop
		body := bt.Cat(bt.I32Const(100000), bt.LocalSet(0),
			[]byte{opBlock, 0x40, opLoop, 0x40, opLoop, 0x40},
			work(),
			bt.LocalGet(0), []byte{bt.I32Eqz}, bt.BrIf(2),
			bt.LocalGet(0), bt.I32Const(1), []byte{bt.I32Sub}, bt.LocalSet(0),
			bt.Br(1),
			[]byte{opEnd, opEnd, opEnd})
		m.Funcs = append(m.Funcs, bt.Func{Type: m.Type(nil, nil), Locals: i32l, Export: "run", Body: body})
	}},
	{"leafcalls", func(m *bt.Module) { // a hot loop calling a small function
		leaf := uint32(len(m.Funcs))
		m.Funcs = append(m.Funcs, bt.Func{Type: m.Type(nil, nil), Body: works(7)})
		m.Funcs = append(m.Funcs, bt.Func{Type: m.Type(nil, nil), Locals: i32l, Export: "run", Body: countedLoop(0, 50000, bt.Cat(bt.Call(leaf), work()))})
	}},
}

func TestCheckpointBound(t *testing.T) {
	for _, budget := range []int64{1, 100, 1000, DefaultBudget} {
		for _, c := range boundCases {
			t.Run(c.name, func(t *testing.T) {
				m := newBoundModule()
				c.build(m)
				maxDelta, total := runBounded(t, m.Bytes(), budget)
				require.Positive(t, total, "the program did no work")
				bound := (budget+MaxSegment+1)/workInstrs + 1 // a run may start inside a unit
				require.LessOrEqual(t, maxDelta, bound, "work between two checks (budget %d)", budget)
				if total > 4*bound {
					require.Greater(t, maxDelta, int64(0))
				}
			})
		}
	}
}

// runBounded instruments wasm with the given budget, runs its "run" export
// and returns the most work done between two checks (or before the first,
// or after the last) and the total.
func runBounded(t *testing.T, wasm []byte, budget int64) (maxDelta, total int64) {
	t.Helper()
	ctx := context.Background()
	mod, err := Parse(wasm, DefaultLimits())
	require.NoError(t, err)
	out, err := mod.Instrument(Options{Budget: budget})
	require.NoError(t, err)
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCoreFeatures(api.CoreFeaturesV2))
	defer r.Close(ctx)
	var last int64
	_, err = r.NewHostModuleBuilder(PreemptModule).NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, m api.Module, stack []uint64) {
			w := int64(m.ExportedGlobal("work").Get())
			maxDelta = max(maxDelta, w-last)
			last = w
			stack[0] = uint64(budget)
		}), nil, []api.ValueType{api.ValueTypeI64}).Export(PreemptFunc).Instantiate(ctx)
	require.NoError(t, err)
	inst, err := r.Instantiate(ctx, out)
	require.NoError(t, err)
	_, err = inst.ExportedFunction("run").Call(ctx)
	require.NoError(t, err)
	total = int64(inst.ExportedGlobal("work").Get())
	return max(maxDelta, total-last), total
}
