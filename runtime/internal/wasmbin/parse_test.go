package wasmbin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	bt "github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin/wasmbintest"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// hostileSeeds are the committed hostile fixtures, as fuzz seeds.
func hostileSeeds(tb testing.TB) [][]byte {
	files, err := filepath.Glob("../../../testdata/hostile/*.wasm")
	require.NoError(tb, err)
	require.NotEmpty(tb, files)
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(tb, err)
		out = append(out, b)
	}
	return out
}

// compiles reports whether wazero accepts wasm, with the host's features
// and the check import linked.
func compiles(wasm []byte) bool {
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCoreFeatures(api.CoreFeaturesV2).WithCompilationCache(nil))
	defer r.Close(ctx)
	_, err := r.CompileModule(ctx, wasm)
	return err == nil
}

// withoutCustom is b, a module Parse accepted, without its custom
// sections, which the rewrite drops by design. Some that the spec allows
// wazero refuses: wazero 1.12 reads an empty custom section at the end of
// a module as io.EOF (testdata/fuzz/FuzzParse/fb5a198616477a39).
func withoutCustom(t *testing.T, b []byte) []byte {
	out := append([]byte{}, b[:8]...)
	r := &reader{b: b, pos: 8}
	for r.len() > 0 {
		start := r.pos
		id, _ := r.byte()
		size, err := r.u32()
		require.NoError(t, err)
		_, err = r.bytes(uint64(size))
		require.NoError(t, err)
		if id != secCustom {
			out = append(out, b[start:r.pos]...)
		}
	}
	return out
}

// FuzzParse: the structural pass reads untrusted bytes before anything
// else; it must never panic, never allocate for counts the bytes cannot
// hold, and whatever it accepts must instrument into a module that parses
// again and that wazero accepts exactly when it accepts the original.
func FuzzParse(f *testing.F) {
	for _, s := range hostileSeeds(f) {
		f.Add(s)
	}
	f.Add(genModule([]byte("seed")))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<16 {
			return
		}
		m, err := Parse(b, DefaultLimits())
		if err != nil {
			return
		}
		out, err := m.Instrument(Options{})
		if errors.Is(err, ErrNonFuncImport) {
			return
		}
		var lim *LimitError
		if errors.As(err, &lim) {
			return
		}
		require.NoError(t, err)
		_, err = Parse(out, DefaultLimits())
		require.NoError(t, err, "instrumented module does not parse")
		require.Equal(t, compiles(withoutCustom(t, b)), compiles(out), "instrumentation changed whether wazero accepts the module")
	})
}

func TestParseRealGuests(t *testing.T) {
	for _, b := range hostileSeeds(t) {
		if m, err := Parse(b, DefaultLimits()); err == nil {
			out, err := m.Instrument(Options{})
			if err == nil {
				require.True(t, compiles(out))
			}
		}
	}
}

// Malformed modules are refused with an error, not a panic, and without
// allocating for what they claim.
func TestParseMalformed(t *testing.T) {
	header := "\x00asm\x01\x00\x00\x00"
	cases := map[string]string{
		"section overruns":      header + "\x01\x10\x01",
		"huge type count":       header + "\x01\x05\xff\xff\xff\xff\x0f",
		"huge function count":   header + "\x03\x05\xff\xff\xff\xff\x0f",
		"type form":             header + "\x01\x04\x01\x5f\x00\x00",
		"section order":         header + "\x03\x01\x00\x01\x01\x00",
		"repeated section":      header + "\x01\x01\x00\x01\x01\x00",
		"unknown section":       header + "\x0e\x00",
		"tag section":           header + "\x0d\x00",
		"u32 too long":          header + "\x01\x06\x80\x80\x80\x80\x80\x00",
		"u32 over 32 bits":      header + "\x01\x05\xff\xff\xff\xff\x1f",
		"bodies without funcs":  header + "\x0a\x01\x00\x00",
		"leftover in section":   header + "\x01\x02\x00\x00",
		"bad utf-8 export name": header + "\x07\x05\x01\x01\xff\x00\x00",
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(b), DefaultLimits())
			require.Error(t, err)
		})
	}
}

// Every limit refuses a module just over it, naming the limit and the
// count, and accepts one at it.
func TestLimits(t *testing.T) {
	small := DefaultLimits()
	small.Types, small.Functions, small.Imports, small.Exports, small.Globals = 3, 3, 1, 2, 2
	small.DataSegments, small.ElemSegments, small.Tables = 1, 2, 2
	small.Params, small.Results, small.LocalsPerFunction, small.TotalLocals = 2, 2, 5, 8
	small.BodySize, small.TableSize, small.TotalTableSize, small.ElemEntries = 64, 10, 10, 4
	small.BranchesPerFunction, small.CompileProduct = 5, 10
	small.TotalElemEntries, small.MemoryPages = 6, 2
	fn := func(locals uint32) bt.Func {
		return bt.Func{Locals: []bt.Local{{Count: locals, Type: typeI32}}}
	}
	cases := []struct {
		limit string
		count uint64
		build func(m *bt.Module)
	}{
		{"Types", 5, func(m *bt.Module) {
			for i := range 4 {
				m.Type(nil, []byte{typeI32, typeI64, typeF32, typeF64}[i:i+1])
			}
		}},
		{"Params", 3, func(m *bt.Module) { m.Type([]byte{typeI32, typeI32, typeI32}, nil) }},
		{"Results", 3, func(m *bt.Module) { m.Type(nil, []byte{typeI32, typeI32, typeI32}) }},
		{"Functions", 4, func(m *bt.Module) {
			for range 4 {
				m.Funcs = append(m.Funcs, fn(0))
			}
		}},
		{"Imports", 2, func(m *bt.Module) {
			m.Imports = []bt.Import{{Module: "a", Name: "b"}, {Module: "a", Name: "c"}}
		}},
		{"LocalsPerFunction", 6, func(m *bt.Module) { m.Funcs = append(m.Funcs, fn(6)) }},
		{"LocalsPerFunction", 4294967295, func(m *bt.Module) { m.Funcs = append(m.Funcs, fn(0xffffffff)) }},
		{"TotalLocals", 10, func(m *bt.Module) { m.Funcs = append(m.Funcs, fn(5), fn(5)) }},
		{"BodySize", 67, func(m *bt.Module) {
			f := fn(0)
			f.Body = make([]byte, 63) // 63 nops
			for i := range f.Body {
				f.Body[i] = 0x01
			}
			m.Funcs = append(m.Funcs, f)
		}},
		{"BranchesPerFunction", 6, func(m *bt.Module) {
			f := fn(0)
			f.Body = bt.Repeat(6, []byte{bt.Block, bt.BlockEmpty, bt.End})
			m.Funcs = append(m.Funcs, f)
		}},
		{"CompileProduct", 3 * 4, func(m *bt.Module) { // 3 functions, 1 type, 1 import, 2 globals
			m.Imports = []bt.Import{{Module: "a", Name: "b"}}
			m.Funcs = append(m.Funcs, fn(0), fn(0))
			for range 2 {
				m.Globals = append(m.Globals, bt.Global{Type: typeI32, Init: bt.Cat(bt.I32Const(0), []byte{opEnd})})
			}
		}},
		{"Globals", 3, func(m *bt.Module) {
			for range 3 {
				m.Globals = append(m.Globals, bt.Global{Type: typeI32, Init: bt.Cat(bt.I32Const(0), []byte{opEnd})})
			}
		}},
		{"Tables", 3, func(m *bt.Module) {
			m.Tables = []bt.Table{{RefType: typeFuncref}, {RefType: typeFuncref}, {RefType: typeFuncref}}
		}},
		{"TotalTableSize", 12, func(m *bt.Module) {
			m.Tables = []bt.Table{{RefType: typeFuncref, Limits: bt.Limits{Min: 6}}, {RefType: typeFuncref, Limits: bt.Limits{Min: 6}}}
		}},
		{"DataSegments", 2, func(m *bt.Module) {
			m.Memory = &bt.Limits{Min: 1}
			m.Data = [][]byte{[]byte("a"), []byte("b")}
		}},
		{"TableSize", 11, func(m *bt.Module) { m.Tables = []bt.Table{{RefType: typeFuncref, Limits: bt.Limits{Min: 11}}} }},
		{"TableSize", 4294967295, func(m *bt.Module) { m.Tables = []bt.Table{{RefType: typeFuncref, Limits: bt.Limits{Min: 0xffffffff}}} }},
		{"MemoryPages", 3, func(m *bt.Module) { m.Memory = &bt.Limits{Min: 3} }},
		{"ElemEntries", 5, func(m *bt.Module) {
			m.Funcs = append(m.Funcs, fn(0))
			m.Tables = []bt.Table{{RefType: typeFuncref, Limits: bt.Limits{Min: 5}}}
			m.Elems = []bt.Elem{{Offset: bt.Cat(bt.I32Const(0), []byte{opEnd}), Funcs: []uint32{0, 0, 0, 0, 0}}}
		}},
		{"ElemSegments", 3, func(m *bt.Module) {
			m.Funcs = append(m.Funcs, fn(0))
			m.Tables = []bt.Table{{RefType: typeFuncref, Limits: bt.Limits{Min: 5}}}
			seg := bt.Elem{Offset: bt.Cat(bt.I32Const(0), []byte{opEnd}), Funcs: []uint32{0}}
			m.Elems = []bt.Elem{seg, seg, seg}
		}},
		{"TotalElemEntries", 8, func(m *bt.Module) {
			m.Funcs = append(m.Funcs, fn(0))
			m.Tables = []bt.Table{{RefType: typeFuncref, Limits: bt.Limits{Min: 5}}}
			seg := bt.Elem{Offset: bt.Cat(bt.I32Const(0), []byte{opEnd}), Funcs: []uint32{0, 0, 0, 0}}
			m.Elems = []bt.Elem{seg, seg}
		}},
		{"Exports", 3, func(m *bt.Module) {
			m.Funcs = append(m.Funcs, fn(0))
			m.Globals = []bt.Global{{Type: typeI32, Init: bt.Cat(bt.I32Const(0), []byte{opEnd}), Export: "g"}}
			m.Funcs[0].Export = "f"
			m.Memory = &bt.Limits{Min: 1}
		}},
	}
	t.Run("Memories", func(t *testing.T) { // two memory definitions, which the builder cannot write
		_, err := Parse([]byte("\x00asm\x01\x00\x00\x00\x05\x05\x02\x00\x01\x00\x01"), small)
		var lim *LimitError
		require.ErrorAs(t, err, &lim, "want a limit error")
		require.Equal(t, "Memories", lim.Limit)
		require.Equal(t, uint64(2), lim.Count)
	})
	for _, c := range cases {
		t.Run(c.limit, func(t *testing.T) {
			m := &bt.Module{}
			m.Type(nil, nil)
			c.build(m)
			mod, err := Parse(m.Bytes(), small)
			if err == nil { // a limit of the whole module's tables, checked as the rewrite bounds them
				_, err = mod.Instrument(Options{})
			}
			var lim *LimitError
			require.ErrorAs(t, err, &lim, "want a limit error")
			require.Equal(t, c.limit, lim.Limit)
			require.Equal(t, c.count, lim.Count)
			require.Contains(t, err.Error(), c.limit)
			require.Contains(t, err.Error(), strconv.FormatUint(c.count, 10))
			if c.count < 1<<20 {
				_, err = Parse(m.Bytes(), DefaultLimits())
				require.NoError(t, err, "the same module is within the default limits")
			}
		})
	}
}
