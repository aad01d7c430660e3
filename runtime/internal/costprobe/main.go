// Command costprobe compiles one generated module (or a module file) in
// its own process as the host's compile worker would (instrumented,
// CoreFeaturesV2, two compiler workers) and prints the cost model's
// estimate beside the time it took; run it under /usr/bin/time -f %M,%U,%S
// for peak RSS and CPU. It is how the weights in wasmbin/cost.go were
// measured:
//
//	go build -o /tmp/costprobe ./runtime/internal/costprobe
//	/usr/bin/time -f 'rss=%MkB cpu=%U+%S' /tmp/costprobe KIND N FUNCS [FILE]
//
// KIND is eqz, grow, constdrop, call, nest (N of them in each of FUNCS
// functions), types (FUNCS types of N params), or file (FILE).
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin"
	bt "github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin/wasmbintest"
)

func main() {
	kind := os.Args[1]
	n, _ := strconv.Atoi(os.Args[2])
	fns, _ := strconv.Atoi(os.Args[3])
	m := &bt.Module{}
	void := m.Type(nil, nil)
	m.Memory = &bt.Limits{Min: 1}
	var body []byte
	switch kind {
	case "eqz":
		body = bt.Cat(bt.I32Const(0), bt.Repeat(n, []byte{0x45}), []byte{bt.Drop})
	case "grow":
		body = bt.Cat(bt.I32Const(0), bt.Repeat(n, []byte{0x40, 0}), []byte{bt.Drop})
	case "constdrop":
		body = bt.Repeat(n, []byte{0x41, 0x01, bt.Drop})
	case "call":
		loop := m.Func(bt.Func{Type: void, Body: []byte{bt.Loop, bt.BlockEmpty, bt.Br(0)[0], 0, bt.End}})
		body = bt.Repeat(n, bt.Call(loop))
	case "nest":
		body = bt.Cat(bt.Repeat(n, []byte{bt.Block, bt.BlockEmpty}), bt.Repeat(n, []byte{bt.End}))
	case "types":
		ps := make([]byte, n)
		for i := range ps {
			ps[i] = bt.I32
		}
		for i := 0; i < fns; i++ {
			ps[0] = []byte{bt.I32, bt.I64, bt.F32, bt.F64}[i%4]
			ps[1] = []byte{bt.I32, bt.I64, bt.F32, bt.F64}[(i/4)%4]
			ps[2] = []byte{bt.I32, bt.I64, bt.F32, bt.F64}[(i/16)%4]
			ps[3] = []byte{bt.I32, bt.I64, bt.F32, bt.F64}[(i/64)%4]
			ps[4] = []byte{bt.I32, bt.I64, bt.F32, bt.F64}[(i/256)%4]
			ps[5] = []byte{bt.I32, bt.I64, bt.F32, bt.F64}[(i/1024)%4]
			ps[6] = []byte{bt.I32, bt.I64, bt.F32, bt.F64}[(i/4096)%4]
			ps[7] = []byte{bt.I32, bt.I64, bt.F32, bt.F64}[(i/16384)%4]
			m.Types = append(m.Types, bt.FuncType{Params: append([]byte(nil), ps...)})
		}
		fns = 0
	}
	for i := 0; i < fns; i++ {
		m.Func(bt.Func{Type: void, Body: body})
	}
	b := m.Bytes()
	if kind == "file" {
		b, _ = os.ReadFile(os.Args[4])
	}
	lim := wasmbin.DefaultLimits()
	lim.FunctionCompileMemory, lim.CompileMemory, lim.CompileTime = 1<<62, 1<<62, 1<<62
	mod, err := wasmbin.Parse(b, lim)
	if err != nil {
		fmt.Println("parse:", err)
		os.Exit(1)
	}
	c := mod.Cost()
	fmt.Printf("model: largest function %d MiB, module %d MiB, %.2f s of CPU\n", c.MaxFunctionMemory>>20, c.Memory>>20, float64(c.Time)/1e9)
	if b, err = mod.Instrument(wasmbin.Options{}); err != nil {
		fmt.Println("instrument:", err)
		os.Exit(1)
	}
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCoreFeatures(api.CoreFeaturesV2).WithMemoryLimitPages(1024))
	start := time.Now()
	_, err = r.CompileModule(experimental.WithCompilationWorkers(ctx, 2), b)
	fmt.Printf("%s n=%d fns=%d bytes=%d took=%s err=%v\n", kind, n, fns, len(b), time.Since(start), err)
}
