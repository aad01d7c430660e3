//go:build linux

package runtime_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin"
	bt "github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin/wasmbintest"
)

// Extreme modules: providers that are structurally valid and within the
// host's limits, but as large or deep as the limits allow in one direction
// (functions, locals, body size, branches, nesting, tables, globals, types,
// exports, imports, data, elements, recursion, memory, run time). Each is
// loaded and called once by the real binary (`mcp-wasm call X read`), in a
// child process, which must end with a result or a clear error: no fatal
// error, no crash, no hang, and a peak RSS under extremeRSSBudget.
//
// The seeds (every family at its largest) run in every `go test`;
// FuzzExtremeModules explores the sizes
// (make fuzz-smoke runs it briefly; run it longer with
// go test ./runtime -run XXX -fuzz FuzzExtremeModules -fuzztime 10m).

// extremeRSSBudget is the stated bound on what one provider's load and one
// call may cost the host: compile memory (two compiler workers), instance
// memory (64 MiB linear memory, tables up to 16 MiB), the guest's stack on
// the host (wazero grows it to about 160 MB before a stack overflow), and
// the process itself.
const extremeRSSBudget = 512 << 20

const (
	famFunctions = iota
	famLocals
	famBody
	famBranches
	famNesting
	famTable
	famGlobals
	famTypes
	famExports
	famImports
	famData
	famElems
	famBrTable
	famRecursion
	famMemory
	famExpRec
	famAll // every static family at once
	famCount
)

var famNames = [famCount]string{"functions", "locals", "body", "branches", "nesting", "table", "globals", "types",
	"exports", "imports", "data", "elems", "brtable", "recursion", "memory", "exprec", "all"}

// scaled maps scale (0..2^24-1) onto 1..max.
func scaled(scale uint32, max int) int {
	return 1 + int(uint64(scale%(1<<24))*uint64(max-1)/(1<<24-1))
}

const (
	describeJSON = `{"name":"x","version":"1.0.0","uriSpace":[{"scheme":"x"}],"operations":["read"]}`
	readJSON     = `{"contents":[{"uri":"x:a","text":"ok"}]}`
)

// extremeModule builds the provider of family fam at scale.
func extremeModule(fam byte, scale uint32) []byte {
	m := &bt.Module{}
	io := m.Type([]byte{bt.I32, bt.I32}, []byte{bt.I32})
	op := m.Type([]byte{bt.I32}, []byte{bt.I32})
	m.Imports = []bt.Import{{Module: "mcpw_v1", Name: "input_read", Type: io}, {Module: "mcpw_v1", Name: "output_write", Type: io}}
	m.Memory = &bt.Limits{Min: 1}
	data := make([]byte, 512)
	copy(data, describeJSON)
	copy(data[256:], readJSON)
	m.Data = [][]byte{data}
	reply := func(at int32, s string) []byte {
		return bt.Cat(bt.I32Const(at), bt.I32Const(int32(len(s))), bt.Call(1), []byte{bt.Drop}, bt.I32Const(0))
	}
	work := extremeParts(m, fam%famCount, scale, io)
	m.Func(bt.Func{Type: op, Export: "mcpw_v1_describe", Body: reply(0, describeJSON)})
	m.Func(bt.Func{Type: op, Export: "mcpw_v1_read", Body: bt.Cat(work, reply(256, readJSON))})
	return m.Bytes()
}

// extremeParts adds family fam's parts to m and returns what read runs
// before it replies.
func extremeParts(m *bt.Module, fam byte, scale uint32, io uint32) []byte {
	lim := wasmbin.DefaultLimits()
	void := m.Type(nil, nil)
	var work []byte
	switch fam {
	case famAll: // every static family at once, within CompileProduct
		const per = 3_500 // (5,000 + 3,500 functions) × (3 × 3,500 declarations) is just under 10^8
		for range scaled(scale, 5_000) {
			m.Funcs = append(m.Funcs, bt.Func{Type: void})
		}
		for i := range per {
			m.Types = append(m.Types, bt.FuncType{Params: []byte{bt.I32, bt.I64, bt.F32, bt.F64}[i%4 : i%4+1]})
			m.Imports = append(m.Imports, bt.Import{Module: "mcpw_v1", Name: "input_read", Type: io})
			m.Globals = append(m.Globals, bt.Global{Type: bt.I32, Init: bt.ConstExpr(bt.I32Const(0))})
		}
		for _, f := range []byte{famLocals, famElems, famTable} {
			extremeParts(m, f, scale, io)
		}
	case famFunctions:
		for range scaled(scale, int(lim.Functions)-len(m.Funcs)-len(m.Imports)-1000) {
			m.Funcs = append(m.Funcs, bt.Func{Type: void})
		}
	case famLocals: // functions of 49,999 locals, up to the module-wide total
		for range scaled(scale, int(lim.TotalLocals/49_999)-1) {
			m.Funcs = append(m.Funcs, bt.Func{Type: void, Locals: []bt.Local{{Count: 49_999, Type: bt.V128}}})
		}
	case famBody: // a straight run filling the largest body
		m.Funcs = append(m.Funcs, bt.Func{Type: void, Body: bt.Repeat(scaled(scale, (int(lim.BodySize)-16)/3), []byte{0x41, 0x01, bt.Drop})})
	case famBranches:
		f := bt.Func{Type: void, Locals: []bt.Local{{Count: 1, Type: bt.I32}}, Body: bt.Repeat(scaled(scale, int(lim.BranchesPerFunction)), bt.Cat(bt.LocalGet(0), []byte{bt.If, bt.BlockEmpty, bt.End}))}
		work = bt.Call(m.Func(f))
	case famNesting:
		d := scaled(scale, int(lim.BranchesPerFunction))
		f := bt.Func{Type: void, Body: bt.Cat(bt.Repeat(d, []byte{bt.Block, bt.BlockEmpty}), bt.Repeat(d, []byte{bt.End}))}
		work = bt.Call(m.Func(f))
	case famTable: // the largest tables, then grow one by 2^27 and by 2^32-1
		for range 2 {
			m.Tables = append(m.Tables, bt.Table{RefType: bt.Funcref, Limits: bt.Limits{Min: uint32(scaled(scale, int(lim.TableSize)/2))}})
		}
		grow := func(n int32) []byte {
			return bt.Cat([]byte{bt.RefNull, bt.Funcref}, bt.I32Const(n), []byte{bt.Misc, 15, 0, bt.Drop})
		}
		work = bt.Cat(grow(1<<27), grow(-1))
	case famGlobals:
		for range scaled(scale, int(lim.Globals)) {
			m.Globals = append(m.Globals, bt.Global{Type: bt.V128, Init: bt.Cat([]byte{0xfd, 12}, make([]byte, 16), []byte{bt.End})})
		}
	case famTypes:
		for i := range scaled(scale, int(lim.Types)-len(m.Types)) {
			m.Types = append(m.Types, bt.FuncType{Params: []byte{bt.I32, bt.I64, bt.F32, bt.F64}[i%4 : i%4+1]})
		}
	case famExports: // as many exported functions as CompileProduct allows
		for i := range scaled(scale, 9_900) {
			m.Funcs = append(m.Funcs, bt.Func{Type: void, Export: fmt.Sprintf("e%d", i)})
		}
	case famImports: // imports come first in the function index space: keep output_write at 1
		for range scaled(scale, 9_900) { // as many as CompileProduct allows

			m.Imports = append(m.Imports, bt.Import{Module: "mcpw_v1", Name: "input_read", Type: io})
		}
	case famData: // the largest data segment the module holds, and as many segments as allowed
		m.Memory = &bt.Limits{Min: 1024}
		n := scaled(scale, int(lim.DataSegments)-10)
		m.Data = append(m.Data, make([]byte, 30<<20-n))
		for range n - 1 {
			m.Data = append(m.Data, []byte{1})
		}
	case famElems:
		n := scaled(scale, int(lim.TableSize))
		m.Tables = []bt.Table{{RefType: bt.Funcref, Limits: bt.Limits{Min: uint32(n)}}}
		f := m.Func(bt.Func{Type: void})
		funcs := make([]uint32, n)
		for i := range funcs {
			funcs[i] = f
		}
		m.Elems = []bt.Elem{{Offset: bt.ConstExpr(bt.I32Const(0)), Funcs: funcs}}
	case famBrTable: // one br_table with as many labels as allowed
		n := scaled(scale, int(lim.BranchesPerFunction)-2)
		body := bt.Cat([]byte{bt.Block, bt.BlockEmpty}, bt.I32Const(0), []byte{bt.BrTable}, bt.U32(nil, uint32(n)), make([]byte, n+1), []byte{bt.End})
		work = bt.Call(m.Func(bt.Func{Type: void, Body: body}))
	case famRecursion: // recursion until the stack overflows, each frame as large as asked
		self := uint32(len(m.Imports) + len(m.Funcs))
		locals := uint32(scaled(scale, 49_000))
		work = bt.Call(m.Func(bt.Func{Type: void, Locals: []bt.Local{{Count: locals, Type: bt.V128}}, Body: bt.Call(self)}))
	case famMemory: // grow to the cap, fill it, again and again
		m.Memory = &bt.Limits{Min: 1, Max: 65535, HasMax: true}
		work = bt.Cat(bt.I32Const(0xffff), []byte{0x40, 0, bt.Drop},
			[]byte{bt.Loop, bt.BlockEmpty}, bt.I32Const(0), bt.I32Const(7), []byte{0x3f, 0}, bt.I32Const(16), []byte{0x74},
			[]byte{bt.Misc, 11, 0}, bt.Br(0), []byte{bt.End})
	case famExpRec: // 2^depth calls, no loop
		self := uint32(len(m.Imports) + len(m.Funcs))
		body := bt.Cat(bt.LocalGet(0), []byte{bt.If, bt.BlockEmpty},
			bt.LocalGet(0), bt.I32Const(1), []byte{bt.I32Sub}, bt.Call(self),
			bt.LocalGet(0), bt.I32Const(1), []byte{bt.I32Sub}, bt.Call(self), []byte{bt.End})
		f := m.Func(bt.Func{Type: m.Type([]byte{bt.I32}, nil), Body: body})
		work = bt.Cat(bt.I32Const(int32(scaled(scale, 62))), bt.Call(f))
	}
	return work
}

// runExtreme loads and calls wasm in a child process and checks how it ended.
func runExtreme(t *testing.T, bin string, wasm []byte) {
	path := filepath.Join(t.TempDir(), "x.wasm")
	require.NoError(t, os.WriteFile(path, wasm, 0o644))
	cmd := exec.Command(bin, "call", "--timeout", "2s", "--cache-dir", "", path, "read", "x:a")
	outPath := filepath.Join(t.TempDir(), "out")
	out, err := os.Create(outPath)
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = out, out
	status, rss, err := runPeakRSS(cmd, 3*time.Minute)
	_ = out.Close()
	require.NoError(t, err)
	b, err := os.ReadFile(outPath)
	require.NoError(t, err)
	text := string(b)
	require.True(t, status.Exited(), "the child was killed (%v): over 3 minutes, or a crash", status.Signal())
	code := status.ExitStatus()
	t.Logf("exit %d, peak RSS %d MiB, module %d bytes: %s", code, rss>>20, len(wasm), lastLineOf(text))
	for _, bad := range []string{"fatal error", "panic:", "goroutine ", "SIGSEGV", "out of memory"} {
		require.NotContains(t, text, bad, "the host crashed")
	}
	require.Contains(t, []int{0, 1}, code, "a result or a clear error, not a crash (%s)", lastLineOf(text))
	if code == 1 {
		require.Contains(t, "\n"+text, "\nmcp-wasm: ", "a clear error")
	}
	require.Positive(t, rss)
	require.LessOrEqual(t, rss, int64(extremeRSSBudget), "peak RSS over the budget")
}

func lastLineOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}

func FuzzExtremeModules(f *testing.F) {
	for fam := range famCount {
		f.Add(byte(fam), []byte{0xff, 0xff, 0xff})
	}
	if testing.Short() {
		f.Skip("builds the binary and runs a child per module")
	}
	// Built before f.Fuzz, which a fuzzing worker runs too: outside the
	// 10 s Go's fuzzer gives each input before it kills the worker as hung.
	bin := testguest.Binary(f)
	f.Fuzz(func(t *testing.T, fam byte, scale []byte) {
		s := uint32(0)
		if len(scale) >= 3 {
			s = uint32(scale[0])<<16 | uint32(binary.BigEndian.Uint16(scale[1:]))
		}
		t.Logf("family %s, scale %d", famNames[fam%famCount], s)
		runExtreme(t, bin, extremeModule(fam, s))
	})
}

// TestOverLimitModules: modules of a few bytes that declare what would make
// the compiler allocate without bound (billions of locals, functions or
// table entries) are refused by every command that loads a module, before
// wazero sees them: exit 1, the limit and the offending count named, and a
// peak RSS of an idle process.
func TestOverLimitModules(t *testing.T) {
	header := []byte("\x00asm\x01\x00\x00\x00")
	typeSec := []byte{1, 4, 1, 0x60, 0, 0} // one type: () -> ()
	locals := &bt.Module{}
	locals.Type(nil, nil)
	locals.Funcs = []bt.Func{{Locals: []bt.Local{{Count: 0xffffffff, Type: 0x7f}}}}
	table := &bt.Module{}
	table.Tables = []bt.Table{{RefType: 0x70, Limits: bt.Limits{Min: 0xffffffff}}}
	modules := []struct {
		name, limit, count string
		wasm               []byte
	}{
		{"locals", "LocalsPerFunction", "4294967295", locals.Bytes()},
		// A function section that declares 2^32-1 functions and holds none.
		{"functions", "function count", "4294967295", bt.Cat(header, typeSec, []byte{3, 5, 0xff, 0xff, 0xff, 0xff, 0x0f})},
		{"table", "TableSize", "4294967295", table.Bytes()},
	}
	bin := testguest.Binary(t)
	for _, m := range modules {
		path := filepath.Join(t.TempDir(), m.name+".wasm")
		require.NoError(t, os.WriteFile(path, m.wasm, 0o644))
		for _, args := range [][]string{{"inspect", path}, {"call", path, "describe"}, {"serve", "--module", path}} {
			t.Run(m.name+"/"+args[0], func(t *testing.T) {
				cmd := exec.Command(bin, append([]string{args[0], "--cache-dir", ""}, args[1:]...)...)
				outPath := filepath.Join(t.TempDir(), "out") // a file: runPeakRSS waits for the process, not for copiers
				f, err := os.Create(outPath)
				require.NoError(t, err)
				cmd.Stdout, cmd.Stderr = f, f
				status, rss, err := runPeakRSS(cmd, time.Minute)
				_ = f.Close()
				require.NoError(t, err)
				b, err := os.ReadFile(outPath)
				require.NoError(t, err)
				out := string(b)
				require.True(t, status.Exited(), "killed: %v", status.Signal())
				require.Equal(t, 1, status.ExitStatus(), out)
				require.Contains(t, out, m.limit, "the refusal names the limit or the truncation")
				require.Contains(t, out, m.count, "and the offending count")
				require.Less(t, rss, int64(128<<20), "refused before anything large was allocated")
			})
		}
	}
}
