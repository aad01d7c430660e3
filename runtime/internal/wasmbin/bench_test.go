package wasmbin

import (
	"context"
	"os"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	bt "github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin/wasmbintest"
)

// BenchmarkParse and BenchmarkInstrument measure the structural pass and
// the rewrite on a real Go guest (about 4 MB) and a C guest (about 30 KB).
func benchModules(b *testing.B) map[string][]byte {
	out := map[string][]byte{}
	for name, path := range map[string]string{
		"go": testguest.Go(b, "guests/notes"),
		"c":  testguest.C(b, "cdocs", "guests/c/mcpw.c", "guests/cdocs/cdocs.c"),
	} {
		w, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		out[name] = w
	}
	return out
}

func BenchmarkParse(b *testing.B) {
	for name, w := range benchModules(b) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(w)))
			for b.Loop() {
				if _, err := Parse(w, DefaultLimits()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkInstrument(b *testing.B) {
	for name, w := range benchModules(b) {
		m, err := Parse(w, DefaultLimits())
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(w)))
			for b.Loop() {
				if _, err := m.Instrument(Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCheckpoint measures what a checkpoint costs: a loop of a few
// instructions, and a loop calling a small function, run as received (no
// check at all) and instrumented (a loop-header checkpoint per iteration;
// an entry and a return-point checkpoint per call). ns/op is per
// iteration; the difference between the two modes is the cost of the
// checkpoints of one iteration.
func BenchmarkCheckpoint(b *testing.B) {
	const iters = 1 << 20
	shapes := map[string]func(m *bt.Module){
		"loop": func(m *bt.Module) {
			m.Funcs = append(m.Funcs, bt.Func{Type: m.Type(nil, nil), Locals: i32l, Export: "run", Body: countedLoop(0, iters, work())})
		},
		"calls": func(m *bt.Module) {
			leaf := uint32(len(m.Funcs))
			m.Funcs = append(m.Funcs, bt.Func{Type: m.Type(nil, nil), Body: work()})
			m.Funcs = append(m.Funcs, bt.Func{Type: m.Type(nil, nil), Locals: i32l, Export: "run", Body: countedLoop(0, iters, bt.Call(leaf))})
		},
	}
	for name, build := range shapes {
		m := newBoundModule()
		build(m)
		orig := m.Bytes()
		mod, err := Parse(orig, DefaultLimits())
		if err != nil {
			b.Fatal(err)
		}
		inst, err := mod.Instrument(Options{})
		if err != nil {
			b.Fatal(err)
		}
		for mode, wasm := range map[string][]byte{"off": orig, "instrument": inst} {
			b.Run(name+"/"+mode, func(b *testing.B) {
				ctx := context.Background()
				r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCoreFeatures(api.CoreFeaturesV2))
				defer r.Close(ctx)
				_, err := r.NewHostModuleBuilder(PreemptModule).NewFunctionBuilder().
					WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, _ api.Module, stack []uint64) {
						stack[0] = DefaultBudget
					}), nil, []api.ValueType{api.ValueTypeI64}).Export(PreemptFunc).Instantiate(ctx)
				if err != nil {
					b.Fatal(err)
				}
				in, err := r.Instantiate(ctx, wasm)
				if err != nil {
					b.Fatal(err)
				}
				run := in.ExportedFunction("run")
				b.ResetTimer()
				for i := 0; i < b.N; i += iters {
					if _, err := run.Call(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
