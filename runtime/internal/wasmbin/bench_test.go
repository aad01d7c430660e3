package wasmbin

import (
	"os"
	"testing"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
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
