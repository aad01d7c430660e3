package wasmbin

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	bt "github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin/wasmbintest"
)

// costModule is a module of n functions, each body made by body.
func costModule(n int, body func(m *bt.Module) []byte) *bt.Module {
	m := &bt.Module{Memory: &bt.Limits{Min: 1}}
	void := m.Type(nil, nil)
	b := body(m)
	for range n {
		m.Func(bt.Func{Type: void, Body: b})
	}
	return m
}

// The compiler-cost model refuses, before any compiler runs, the modules
// that made wazero take gigabytes or minutes within the structural limits
// (an outside attacker suite's, and one of each expensive kind), naming the
// bound it hit.
func TestCostRefusesHostile(t *testing.T) {
	loop := func(m *bt.Module) uint32 {
		return m.Func(bt.Func{Type: m.Type(nil, nil), Body: bt.Cat([]byte{bt.Loop, bt.BlockEmpty}, bt.Br(0), []byte{bt.End})})
	}
	cases := []struct {
		name, limit string
		m           *bt.Module
	}{
		{"2 MB of i32.eqz", "FunctionCompileMemory", costModule(1, func(*bt.Module) []byte {
			return bt.Cat(bt.I32Const(0), bt.Repeat(2_080_000, []byte{0x45}), []byte{bt.Drop})
		})},
		{"1,040,000 memory.grow", "FunctionCompileMemory", costModule(1, func(*bt.Module) []byte {
			return bt.Cat(bt.I32Const(0), bt.Repeat(1_040_000, []byte{0x40, 0}), []byte{bt.Drop})
		})},
		{"memory.fill, a bulk operation like memory.grow", "FunctionCompileMemory", costModule(1, func(*bt.Module) []byte {
			return bt.Repeat(40_000, bt.Cat(bt.I32Const(0), bt.I32Const(0), bt.I32Const(0), []byte{bt.Misc, 11, 0}))
		})},
		{"45 × 9,990 calls of a loop", "CompileMemory", costModule(45, func(m *bt.Module) []byte {
			return bt.Repeat(9_990, bt.Call(loop(m)))
		})},
		{"200 × 9,990 nested blocks", "CompileMemory", costModule(200, func(*bt.Module) []byte {
			return bt.Cat(bt.Repeat(9_990, []byte{bt.Block, bt.BlockEmpty}), bt.Repeat(9_990, []byte{bt.End}))
		})},
		{"50 × 9,990 nested blocks: time, not memory", "CompileTime", costModule(50, func(*bt.Module) []byte {
			return bt.Cat(bt.Repeat(9_990, []byte{bt.Block, bt.BlockEmpty}), bt.Repeat(9_990, []byte{bt.End}))
		})},
		{"30,000 types × 1,000 params", "CompileMemory", func() *bt.Module {
			m := &bt.Module{}
			for i := range 30_000 {
				ps := make([]byte, 1_000)
				for j := range ps {
					ps[j] = []byte{bt.I32, bt.I64, bt.F32, bt.F64}[(i>>(2*min(j, 7)))&3]
				}
				m.Types = append(m.Types, bt.FuncType{Params: ps})
			}
			return m
		}()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.m.Bytes(), DefaultLimits())
			var lim *LimitError
			require.True(t, errors.As(err, &lim), "refused by a limit: %v", err)
			require.Equal(t, c.limit, lim.Limit, err.Error())
		})
	}
}

// Real toolchain output stays well within the model's budgets: Go (the
// largest guests), C (the default provider), Rust-sized bodies.
func TestCostAcceptsRealGuests(t *testing.T) {
	guests := map[string]string{
		"go":               testguest.Go(t, "guests/files"),
		"default provider": filepath.Join(testguest.Root(), "cmd", "mcp-wasm", "defaultprovider", "files.wasm"),
	}
	for name, path := range guests {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		m, err := Parse(b, DefaultLimits())
		require.NoError(t, err, name)
		c := m.Cost()
		t.Logf("%s: %d bytes, largest function %d MiB, module %d MiB, %.1f s", name, len(b), c.MaxFunctionMemory>>20, c.Memory>>20, float64(c.Time)/1e9)
		lim := DefaultLimits()
		require.Less(t, c.Memory, lim.CompileMemory/2, "%s: room for a guest twice as large", name)
		require.Less(t, c.Time, lim.CompileTime/2, name)
	}
}
