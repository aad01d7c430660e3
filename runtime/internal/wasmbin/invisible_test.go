package wasmbin

import (
	"testing"

	"github.com/stretchr/testify/require"

	bt "github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin/wasmbintest"
)

// The import and the global Instrument appends get the next indices of
// their index spaces. A module can reach them only by naming an index past
// its own, and Parse refuses every such reference, wherever it is.
func TestReferencesPastTheModuleRefused(t *testing.T) {
	base := func() *bt.Module {
		m := &bt.Module{}
		m.Imports = []bt.Import{{Module: "env", Name: "f", Type: m.Type(nil, nil)}}
		m.Globals = []bt.Global{{Type: typeI64, Mutable: true, Init: bt.ConstExpr(bt.I64Const(0))}}
		m.Tables = []bt.Table{{RefType: typeFuncref, Limits: bt.Limits{Min: 4}}}
		m.Funcs = []bt.Func{{Type: m.Type(nil, nil)}}
		return m
	}
	// With one import and one defined function, function index 2 is where
	// the check import's shifted neighbours would be, and global 1 is where
	// the budget goes.
	const nextFunc, nextGlobal = 2, 1
	cases := map[string]func(m *bt.Module){
		"global.get": func(m *bt.Module) { m.Funcs[0].Body = bt.Cat(bt.GlobalGet(nextGlobal), []byte{bt.Drop}) },
		"global.set": func(m *bt.Module) { m.Funcs[0].Body = bt.Cat(bt.I64Const(1), bt.GlobalSet(nextGlobal)) },
		"call":       func(m *bt.Module) { m.Funcs[0].Body = bt.Call(nextFunc) },
		"ref.func":   func(m *bt.Module) { m.Funcs[0].Body = bt.Cat(bt.U32([]byte{0xd2}, nextFunc), []byte{bt.Drop}) },
		"global init": func(m *bt.Module) {
			m.Globals = append(m.Globals, bt.Global{Type: typeFuncref, Init: bt.ConstExpr(bt.U32([]byte{0xd2}, nextFunc))})
		},
		"element": func(m *bt.Module) {
			m.Elems = []bt.Elem{{Offset: bt.ConstExpr(bt.I32Const(0)), Funcs: []uint32{nextFunc}}}
		},
		"start": func(m *bt.Module) { s := uint32(nextFunc); m.Start = &s },
		"export global": func(m *bt.Module) {
			m.Globals = append(m.Globals, bt.Global{Type: typeI64, Init: bt.ConstExpr(bt.I64Const(0))})
		},
		"export func": func(m *bt.Module) { m.Funcs[0].Export = "f" },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			m := base()
			_, err := Parse(m.Bytes(), DefaultLimits())
			require.NoError(t, err, "the base module is valid")
			mutate(m)
			wasm := m.Bytes()
			switch name {
			case "export global": // export the global just past the module's own
				wasm = withExport(t, m, Export{Name: "g", Kind: KindGlobal, Index: uint32(len(m.Globals))})
			case "export func":
				wasm = withExport(t, m, Export{Name: "h", Kind: KindFunc, Index: nextFunc})
			}
			_, err = Parse(wasm, DefaultLimits())
			require.Error(t, err)
			require.Contains(t, err.Error(), "out of range")
		})
	}
}

// withExport encodes m with one more export (the builder only exports what
// it defines).
func withExport(t *testing.T, m *bt.Module, e Export) []byte {
	t.Helper()
	mod, err := Parse(m.Bytes(), DefaultLimits())
	require.NoError(t, err)
	out := []byte("\x00asm\x01\x00\x00\x00")
	id := func(x uint32) uint32 { return x }
	out = appendSection(out, secType, encodeTypes(mod.Types))
	out = appendSection(out, secImport, encodeImports(mod.Imports))
	out = appendSection(out, secFunction, encodeU32s(mod.Funcs, id))
	out = appendSection(out, secTable, encodeTables(mod.Tables))
	out = appendSection(out, secGlobal, encodeGlobals(mod.Globals, id))
	out = appendSection(out, secExport, encodeExports(append(mod.Exports, e), id))
	code := appendU32(nil, uint32(len(mod.Codes)))
	for _, c := range mod.Codes {
		body := append(appendU32(nil, 0), c.Body...)
		code = append(appendU32(code, uint32(len(body))), body...)
	}
	return appendSection(out, secCode, code)
}

// After instrumentation the module's interface is the same: the same
// exports naming the same functions, its own imports first in their order,
// and the only additions are the check import (last) and the budget global
// (last), neither exported.
func TestInstrumentedInterface(t *testing.T) {
	m := newBoundModule()
	m.Imports = []bt.Import{{Module: "env", Name: "a", Type: m.Type(nil, nil)}, {Module: "env", Name: "b", Type: m.Type([]byte{typeI32}, nil)}}
	leaf := m.Func(bt.Func{Type: m.Type(nil, nil), Body: work(), Export: "leaf"})
	m.Func(bt.Func{Type: m.Type(nil, nil), Body: bt.Call(leaf), Export: "run"})
	m.Memory = &bt.Limits{Min: 1}
	orig, _, inst := instrumentAgain(t, m.Bytes())

	require.Equal(t, orig.Imports, inst.Imports[:len(orig.Imports)])
	last := inst.Imports[len(inst.Imports)-1]
	require.Equal(t, Import{Module: PreemptModule, Name: PreemptFunc, Kind: KindFunc, Type: uint32(len(orig.Types))}, last)
	require.Len(t, inst.Globals, len(orig.Globals)+1)
	require.Equal(t, orig.Globals, inst.Globals[:len(orig.Globals)])
	require.Len(t, inst.Exports, len(orig.Exports))
	checkIndex, budgetIndex := orig.NumImportedFuncs, uint32(len(orig.Globals))
	for i, e := range orig.Exports {
		got := inst.Exports[i]
		require.Equal(t, e.Name, got.Name)
		require.Equal(t, e.Kind, got.Kind)
		switch e.Kind {
		case KindFunc:
			require.Equal(t, e.Index+1, got.Index, "a defined function keeps its place after the new import")
			require.NotEqual(t, checkIndex, got.Index)
		case KindGlobal:
			require.Equal(t, e.Index, got.Index)
			require.NotEqual(t, budgetIndex, got.Index)
		}
	}
}
