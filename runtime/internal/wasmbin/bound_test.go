package wasmbin

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
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
func work() []byte { return cat(gget(0), i64c(1), []byte{opI64Add}, gset(0)) }

func works(n int) []byte {
	var b []byte
	for range n {
		b = append(b, work()...)
	}
	return b
}

// countedLoop runs body n times, with local l as the counter.
func countedLoop(l uint32, n int32, body []byte) []byte {
	return cat(i32c(n), lset(l),
		[]byte{opBlock, 0x40, opLoop, 0x40},
		lget(l), []byte{opI32Eqz}, brIf(1),
		body,
		lget(l), i32c(1), []byte{opI32Sub}, lset(l),
		br(0),
		[]byte{opEnd, opEnd})
}

// ifElse is if (local l) then a else b (no values).
func ifElse(cond, a, b []byte) []byte {
	return cat(cond, []byte{opIf, 0x40}, a, []byte{opElse}, b, []byte{opEnd})
}

type boundCase struct {
	name  string
	build func(m *tModule) // adds functions; the one exported "run" is called
}

func newBoundModule() *tModule {
	m := &tModule{gexport: map[uint32]string{0: "work"}}
	m.globals = []Global{{Type: typeI64, Mutable: true, Init: cat(i64c(0), []byte{opEnd})}}
	return m
}

var i32p = []byte{typeI32}
var i32l = []LocalDecl{{Count: 2, Type: typeI32}}

var boundCases = []boundCase{
	{"loop", func(m *tModule) {
		m.funcs = append(m.funcs, tFunc{typ: m.typeOf(nil, nil), locals: i32l, export: "run", body: countedLoop(0, 200000, works(3))})
	}},
	{"exprec", func(m *tModule) { // f(n): if n { f(n-1); f(n-1) }; work
		f := uint32(len(m.funcs))
		body := cat(ifElse(lget(0), cat(lget(0), i32c(1), []byte{opI32Sub}, call(f), lget(0), i32c(1), []byte{opI32Sub}, call(f)), nil), work())
		m.funcs = append(m.funcs, tFunc{typ: m.typeOf(i32p, nil), body: body})
		m.funcs = append(m.funcs, tFunc{typ: m.typeOf(nil, nil), export: "run", body: cat(i32c(16), call(f))})
	}},
	{"mutual", func(m *tModule) {
		a, b := uint32(len(m.funcs)), uint32(len(m.funcs)+1)
		rec := func(g uint32) []byte {
			return cat(ifElse(lget(0), cat(lget(0), i32c(1), []byte{opI32Sub}, call(g), lget(0), i32c(1), []byte{opI32Sub}, call(g)), nil), work())
		}
		m.funcs = append(m.funcs, tFunc{typ: m.typeOf(i32p, nil), body: rec(b)}, tFunc{typ: m.typeOf(i32p, nil), body: rec(a)})
		m.funcs = append(m.funcs, tFunc{typ: m.typeOf(nil, nil), export: "run", body: cat(i32c(16), call(a))})
	}},
	{"unwind", func(m *tModule) { // f(n): if n { f(n-1) }; 300 work units on the way back
		f := uint32(len(m.funcs))
		body := cat(ifElse(lget(0), cat(lget(0), i32c(1), []byte{opI32Sub}, call(f)), nil), works(300))
		m.funcs = append(m.funcs, tFunc{typ: m.typeOf(i32p, nil), body: body})
		m.funcs = append(m.funcs, tFunc{typ: m.typeOf(nil, nil), export: "run", body: cat(i32c(3000), call(f))})
	}},
	{"straight", func(m *tModule) { // 5000 work units, no loop, no call: longer than MaxSegment
		m.funcs = append(m.funcs, tFunc{typ: m.typeOf(nil, nil), export: "run", body: works(5000)})
	}},
	{"brtable", func(m *tModule) { // a state machine over 3 states, 100000 steps
		body := cat(i32c(100000), lset(1),
			[]byte{opBlock, 0x40, opLoop, 0x40},
			lget(1), []byte{opI32Eqz}, brIf(1),
			lget(1), i32c(1), []byte{opI32Sub}, lset(1),
			[]byte{opBlock, 0x40, opBlock, 0x40, opBlock, 0x40},
			lget(0), []byte{opBrTable}, appendU32(nil, 2), appendU32(nil, 0), appendU32(nil, 1), appendU32(nil, 2),
			[]byte{opEnd}, work(), i32c(1), lset(0), br(1), // state 0 -> 1, to the loop
			[]byte{opEnd}, works(2), i32c(2), lset(0), br(0), // state 1 -> 2
			[]byte{opEnd}, works(3), i32c(0), lset(0), br(0), // state 2 -> 0
			[]byte{opEnd, opEnd})
		m.funcs = append(m.funcs, tFunc{typ: m.typeOf(nil, nil), locals: i32l, export: "run", body: body})
	}},
	{"skip", func(m *tModule) { // a forward branch that jumps over a loop into a long run
		inner := cat([]byte{opLoop, 0x40}, work(), []byte{opEnd})
		body := countedLoop(0, 2000, cat(
			[]byte{opBlock, 0x40}, i32c(1), brIf(0), inner, []byte{opEnd},
			works(500)))
		m.funcs = append(m.funcs, tFunc{typ: m.typeOf(nil, nil), locals: i32l, export: "run", body: body})
	}},
	{"ifs", func(m *tModule) { // loops in then and else arms
		arm := countedLoop(1, 50, works(2))
		body := countedLoop(0, 4000, ifElse(cat(lget(0), i32c(1), []byte{0x71}), arm, cat(arm, works(1))))
		m.funcs = append(m.funcs, tFunc{typ: m.typeOf(nil, nil), locals: i32l, export: "run", body: body})
	}},
	{"nested", func(m *tModule) { // the inner loop's only back-edge goes to the outer loop
		body := cat(i32c(100000), lset(0),
			[]byte{opBlock, 0x40, opLoop, 0x40, opLoop, 0x40},
			work(),
			lget(0), []byte{opI32Eqz}, brIf(2),
			lget(0), i32c(1), []byte{opI32Sub}, lset(0),
			br(1),
			[]byte{opEnd, opEnd, opEnd})
		m.funcs = append(m.funcs, tFunc{typ: m.typeOf(nil, nil), locals: i32l, export: "run", body: body})
	}},
	{"leafcalls", func(m *tModule) { // a hot loop calling a small function
		leaf := uint32(len(m.funcs))
		m.funcs = append(m.funcs, tFunc{typ: m.typeOf(nil, nil), body: works(7)})
		m.funcs = append(m.funcs, tFunc{typ: m.typeOf(nil, nil), locals: i32l, export: "run", body: countedLoop(0, 50000, cat(call(leaf), work()))})
	}},
}

func TestCheckpointBound(t *testing.T) {
	for _, budget := range []int64{1, 100, 1000, DefaultBudget} {
		for _, c := range boundCases {
			t.Run(c.name, func(t *testing.T) {
				m := newBoundModule()
				c.build(m)
				maxDelta, total := runBounded(t, m.build(), budget)
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
