//go:build linux

package runtime_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	bt "github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin/wasmbintest"
)

// provider builds a provider (describe, read) that also defines the
// functions add makes, which read never calls: only the compiler sees them.
func provider(add func(m *bt.Module, void uint32)) []byte {
	m := &bt.Module{}
	io := m.Type([]byte{bt.I32, bt.I32}, []byte{bt.I32})
	op := m.Type([]byte{bt.I32}, []byte{bt.I32})
	void := m.Type(nil, nil)
	m.Imports = []bt.Import{{Module: "mcpw_v1", Name: "input_read", Type: io}, {Module: "mcpw_v1", Name: "output_write", Type: io}}
	m.Memory = &bt.Limits{Min: 1}
	data := make([]byte, 512)
	copy(data, describeJSON)
	copy(data[256:], readJSON)
	m.Data = [][]byte{data}
	reply := func(at int32, s string) []byte {
		return bt.Cat(bt.I32Const(at), bt.I32Const(int32(len(s))), bt.Call(1), []byte{bt.Drop}, bt.I32Const(0))
	}
	m.Func(bt.Func{Type: op, Export: "mcpw_v1_describe", Body: reply(0, describeJSON)})
	m.Func(bt.Func{Type: op, Export: "mcpw_v1_read", Body: reply(256, readJSON)})
	if add != nil {
		add(m, void)
	}
	return m.Bytes()
}

// hostileCompile are the modules of an outside attacker suite that made
// wazero's compiler take gigabytes or tens of seconds, each within the
// structural limits as they were: the cost model refuses every one.
var hostileCompile = []struct {
	name, limit string
	add         func(m *bt.Module, void uint32)
}{
	{"eqz", "FunctionCompileMemory", func(m *bt.Module, void uint32) { // one body of 2,080,000 i32.eqz
		m.Func(bt.Func{Type: void, Body: bt.Cat(bt.I32Const(0), bt.Repeat(2_080_000, []byte{0x45}), []byte{bt.Drop})})
	}},
	{"memory.grow", "FunctionCompileMemory", func(m *bt.Module, void uint32) { // 1,040,000 memory.grow
		m.Func(bt.Func{Type: void, Body: bt.Cat(bt.I32Const(0), bt.Repeat(1_040_000, []byte{0x40, 0}), []byte{bt.Drop})})
	}},
	{"types", "CompileMemory", func(m *bt.Module, _ uint32) { // 30,000 distinct types of 1,000 params
		for i := range 30_000 {
			ps := make([]byte, 1_000)
			for j := range ps {
				ps[j] = bt.I32
			}
			for j := range 8 { // base-4 digits of i make each type distinct
				ps[j] = []byte{bt.I32, bt.I64, bt.F32, bt.F64}[(i>>(2*j))&3]
			}
			m.Types = append(m.Types, bt.FuncType{Params: ps})
		}
	}},
	{"calls", "CompileMemory", func(m *bt.Module, void uint32) { // 45 functions of 9,990 calls of a loop
		loop := m.Func(bt.Func{Type: void, Body: bt.Cat([]byte{bt.Loop, bt.BlockEmpty}, bt.Br(0), []byte{bt.End})})
		for range 45 {
			m.Func(bt.Func{Type: void, Body: bt.Repeat(9_990, bt.Call(loop))})
		}
	}},
	{"blocks", "CompileMemory", func(m *bt.Module, void uint32) { // 200 functions of 9,990 nested blocks
		for range 200 {
			m.Func(bt.Func{Type: void, Body: bt.Cat(bt.Repeat(9_990, []byte{bt.Block, bt.BlockEmpty}), bt.Repeat(9_990, []byte{bt.End}))})
		}
	}},
}

// TestHostileCompileRefused loads each module with the real binary, in a
// child whose peak RSS is measured: it must be refused by the cost model,
// naming the limit, before any compiler runs, at the RSS of a process that
// decoded the module.
func TestHostileCompileRefused(t *testing.T) {
	bin := testguest.Binary(t)
	for _, h := range hostileCompile {
		t.Run(h.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), h.name+".wasm")
			require.NoError(t, os.WriteFile(path, provider(h.add), 0o644))
			out := filepath.Join(t.TempDir(), "out")
			f, err := os.Create(out)
			require.NoError(t, err)
			cmd := exec.Command(bin, "call", "--cache-dir", "", path, "describe")
			cmd.Stdout, cmd.Stderr = f, f
			status, rss, err := runPeakRSS(cmd, 2*time.Minute)
			_ = f.Close()
			require.NoError(t, err)
			b, err := os.ReadFile(out)
			require.NoError(t, err)
			t.Logf("peak RSS %d MiB: %s", rss>>20, lastLineOf(string(b)))
			require.True(t, status.Exited(), "killed: %v", status.Signal())
			require.Equal(t, 1, status.ExitStatus(), string(b))
			require.Contains(t, string(b), h.limit)
			require.Contains(t, string(b), "split the largest functions")
			require.Less(t, rss, int64(256<<20))
		})
	}
}

// TestCompileWorkerKeepsHostSmall: the real binary loads a module whose
// compilation takes over 120 MiB (one function of 350,000 chained i32.eqz,
// within the cost model) and calls it; its own peak RSS stays that of a
// process that decoded the module and loaded the compiled code, because
// the compiler ran in the worker.
func TestCompileWorkerKeepsHostSmall(t *testing.T) {
	wasm := provider(func(m *bt.Module, void uint32) {
		m.Func(bt.Func{Type: void, Body: bt.Cat(bt.I32Const(0), bt.Repeat(350_000, []byte{0x45}), []byte{bt.Drop})})
	})
	path := filepath.Join(t.TempDir(), "big.wasm")
	require.NoError(t, os.WriteFile(path, wasm, 0o644))
	out := filepath.Join(t.TempDir(), "out")
	f, err := os.Create(out)
	require.NoError(t, err)
	cmd := exec.Command(testguest.Binary(t), "call", "--cache-dir", "", path, "read", "x:a")
	cmd.Stdout, cmd.Stderr = f, f
	status, rss, err := runPeakRSS(cmd, 2*time.Minute)
	_ = f.Close()
	require.NoError(t, err)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	t.Logf("host peak RSS %d MiB", rss>>20)
	require.True(t, status.Exited(), "killed: %v", status.Signal())
	require.Equal(t, 0, status.ExitStatus(), string(b))
	require.Contains(t, string(b), "ok")
	require.Less(t, rss, int64(96<<20), "the host compiled the module itself")
}

// heavy is a provider the cost model accepts whose compilation takes about
// 80 MiB: ten functions of 100,000 chained i32.eqz.
func heavy() []byte {
	return provider(func(m *bt.Module, void uint32) {
		for range 10 {
			m.Func(bt.Func{Type: void, Body: bt.Cat(bt.I32Const(0), bt.Repeat(100_000, []byte{0x45}), []byte{bt.Drop})})
		}
	})
}

// TestCompileWorkerMemoryLimit: a module the model accepts, compiled under
// a compile memory limit too small for it, costs a clear ErrCompile naming
// the limit; the worker died, not this process.
func TestCompileWorkerMemoryLimit(t *testing.T) {
	rt := newRuntime(t, runtime.NewConfig())
	_, err := rt.Load(context.Background(), "heavy", heavy(), testkit.Limits(runtime.NewProviderConfig()).WithCompileMemoryLimit(40<<20))
	require.ErrorIs(t, err, runtime.ErrCompile)
	require.ErrorContains(t, err, "compile memory limit of 40 MiB")
	readOK(t, loadProvider(t, rt, heavy())) // under the default limit, it loads
}

// TestCompileWorkerTimeout: a module the model accepts whose compilation
// takes over a second of CPU, under a compile timeout of one second, is
// stopped: by the timeout or by the CPU limit, whichever comes first on a
// busy machine.
func TestCompileWorkerTimeout(t *testing.T) {
	rt := newRuntime(t, runtime.NewConfig())
	wasm := provider(func(m *bt.Module, void uint32) {
		loop := m.Func(bt.Func{Type: void, Body: bt.Cat([]byte{bt.Loop, bt.BlockEmpty}, bt.Br(0), []byte{bt.End})})
		for range 4 {
			m.Func(bt.Func{Type: void, Body: bt.Repeat(9_000, bt.Call(loop))})
		}
	})
	start := time.Now()
	_, err := rt.Load(context.Background(), "slow", wasm, testkit.Limits(runtime.NewProviderConfig()).WithCompileTimeout(time.Second))
	require.ErrorIs(t, err, runtime.ErrCompile)
	require.ErrorContains(t, err, "compile timeout")
	require.Less(t, time.Since(start), 30*time.Second)
}

// TestCompileWorkerOnceThenCache: the first load of a module pays a worker;
// the next loads, in this runtime or a new one on the same cache directory,
// find the compiled code and start none; a trusted module never does.
func TestCompileWorkerOnceThenCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	wasm := unique()
	ctx := context.Background()
	before := runtime.WorkersStarted()
	rt := newRuntime(t, runtime.NewConfig().WithCacheDir(dir))
	p := loadProvider(t, rt, wasm)
	require.Equal(t, before+1, runtime.WorkersStarted(), "the first load compiles in a worker")
	readOK(t, p)
	loadProvider(t, rt, wasm)
	rt2 := newRuntime(t, runtime.NewConfig().WithCacheDir(dir))
	loadProvider(t, rt2, wasm)
	require.Equal(t, before+1, runtime.WorkersStarted(), "a cache hit starts no worker")

	other := unique()
	rt3 := newRuntime(t, runtime.NewConfig().WithTrustedModule(other))
	p3 := loadProvider(t, rt3, other)
	require.Equal(t, before+1, runtime.WorkersStarted(), "a trusted module starts no worker")
	readOK(t, p3)
	_, err := rt3.Load(ctx, "heavy", heavy(), testkit.Limits(runtime.NewProviderConfig()).WithCompileMemoryLimit(40<<20))
	require.ErrorContains(t, err, "compile memory limit", "trust is per module")
}

// TestReloadIntoDeadCompileKeepsServing: loading a module whose
// compilation kills its worker leaves the provider already loaded serving.
func TestReloadIntoDeadCompileKeepsServing(t *testing.T) {
	rt := newRuntime(t, runtime.NewConfig())
	first := loadProvider(t, rt, provider(nil))
	_, err := rt.Load(context.Background(), "heavy", heavy(), testkit.Limits(runtime.NewProviderConfig()).WithCompileMemoryLimit(40<<20))
	require.ErrorIs(t, err, runtime.ErrCompile)
	readOK(t, first)
}

var nonces atomic.Int32

// unique is a provider no other test loads: the process remembers which
// modules compiled within the limits.
func unique() []byte {
	nonce := nonces.Add(1)
	return provider(func(m *bt.Module, void uint32) {
		m.Func(bt.Func{Type: void, Body: bt.Cat(bt.I32Const(nonce), []byte{bt.Drop})})
	})
}

func newRuntime(t *testing.T, cfg runtime.Config) *runtime.Runtime {
	t.Helper()
	rt, err := runtime.New(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	return rt
}

func loadProvider(t *testing.T, rt *runtime.Runtime, wasm []byte) *runtime.Provider {
	t.Helper()
	p, err := rt.Load(context.Background(), "x", wasm, testkit.Limits(runtime.NewProviderConfig()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return p
}

func readOK(t *testing.T, p *runtime.Provider) {
	t.Helper()
	res, err := p.Read(context.Background(), "x:a")
	require.NoError(t, err)
	require.NotNil(t, res.Contents[0].Text)
	require.Equal(t, "ok", *res.Contents[0].Text)
}

// BenchmarkColdLoad is what the compile worker adds to a first load of a
// small module: a module this process never loaded, in a fresh runtime
// (no cache), with a worker or trusted.
func BenchmarkColdLoad(b *testing.B) {
	for _, trusted := range []bool{false, true} {
		b.Run(map[bool]string{false: "worker", true: "trusted"}[trusted], func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				wasm, cfg := unique(), runtime.NewConfig()
				if trusted {
					cfg = cfg.WithTrustedModule(wasm)
				}
				rt, err := runtime.New(ctx, cfg)
				require.NoError(b, err)
				p, err := rt.Load(ctx, "x", wasm, testkit.Limits(runtime.NewProviderConfig()))
				require.NoError(b, err)
				_ = p.Close(ctx)
				_ = rt.Close(ctx)
			}
		})
	}
}
