package wasmbin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	bt "github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin/wasmbintest"
)

// genSegments builds, from arbitrary bytes, a module with one or two pages
// of memory and data segments clustered as a linker lays them out (runs a
// few to a hundred bytes apart), now and then one that overlaps, is empty,
// lies past the end of memory, is passive, or comes with a data count
// section.
func genSegments(b []byte) []byte {
	g := &genReader{b: b}
	m := &bt.Module{Memory: &bt.Limits{Min: uint32(1 + g.next(2))}, DataCount: g.next(8) == 1}
	off := int64(g.next(4) * 20000)
	for n := 1 + g.next(24); n > 0; n-- {
		switch g.next(40) { // an input run dry reads as zeros: the plain case
		case 1:
			off -= int64(g.next(40)) // overlap the last segment
		case 2:
			off += int64(g.next(200000)) // anywhere, possibly out of bounds
		default:
			off += int64(g.next(100))
		}
		off = max(off, 0)
		init := make([]byte, g.next(4)*g.next(30))
		for i := range init {
			init[i] = byte(1 + (i*7+n)%255)
		}
		s := bt.Segment{Offset: append(bt.I32Const(int32(off)), 0x0b), Init: init, Passive: g.next(100) == 1}
		m.Segments = append(m.Segments, s)
		if !s.Passive {
			off += int64(len(init))
		}
	}
	return m.Bytes()
}

// instantiated returns the memory a module holds once instantiated, or
// the instantiation's error.
func instantiated(t testing.TB, wasm []byte, instrumented bool) (mem []byte, err error) {
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCoreFeatures(api.CoreFeaturesV2))
	defer r.Close(ctx)
	if instrumented {
		_, err := r.NewHostModuleBuilder(PreemptModule).NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, _ api.Module, stack []uint64) { stack[0] = 1 }), nil, []api.ValueType{api.ValueTypeI64}).
			Export(PreemptFunc).Instantiate(ctx)
		require.NoError(t, err)
	}
	inst, err := r.Instantiate(ctx, wasm)
	if err != nil {
		return nil, err
	}
	b, ok := inst.ExportedMemory("memory").Read(0, inst.ExportedMemory("memory").Size())
	require.True(t, ok)
	return bytes.Clone(b), nil
}

// instrumentAgain parses wasm, instruments it and parses the result: the
// module as received, the rewrite, and the rewrite as parsed.
func instrumentAgain(t testing.TB, wasm []byte) (orig *Module, out []byte, again *Module) {
	t.Helper()
	orig, err := Parse(wasm, DefaultLimits())
	require.NoError(t, err)
	out, err = orig.Instrument(Options{})
	require.NoError(t, err)
	again, err = Parse(out, DefaultLimits())
	require.NoError(t, err, "the instrumented module must parse again")
	return orig, out, again
}

// checkSameData instruments the module built from input and requires that
// instantiating it writes the same memory, or fails as the module did.
// It returns the segments before and after.
func checkSameData(t testing.TB, input []byte) (before, after int) {
	wasm := genSegments(input)
	mod, out, again := instrumentAgain(t, wasm)
	want, wantErr := instantiated(t, wasm, false)
	got, gotErr := instantiated(t, out, true)
	require.Equal(t, wantErr != nil, gotErr != nil, "instantiation: %v, instrumented: %v", wantErr, gotErr)
	require.Equal(t, sha256.Sum256(want), sha256.Sum256(got), "the instrumented module's data differs")
	segs, _ := activeSegments(mod.Data)
	merged, _ := activeSegments(again.Data)
	return len(segs), len(merged)
}

// TestCoalescedDataSameMemory: coalescing data segments never changes what
// memory holds after instantiation, nor whether instantiation fails, and
// it does merge the linker-like layouts.
func TestCoalescedDataSameMemory(t *testing.T) {
	mergedSome := 0
	for i := range 400 {
		seed := sha256.Sum256(fmt.Appendf(nil, "data %d", i))
		before, after := checkSameData(t, bytes.Repeat(seed[:], 4))
		if after > 0 && after < before {
			mergedSome++
		}
	}
	require.Greater(t, mergedSome, 100, "modules whose segments were merged, of 400")
}

// FuzzCoalescedData is the differential fuzz target for data segments.
func FuzzCoalescedData(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x01\x01\x00\x10\x03\x05\x02\x07\x03\x09"))
	f.Fuzz(func(t *testing.T, input []byte) {
		if len(input) > 2048 {
			return
		}
		checkSameData(t, input)
	})
}

// TestCoalescedDataCases: the cases the rule names, one by one.
func TestCoalescedDataCases(t *testing.T) {
	seg := func(off int32, n int) bt.Segment {
		return bt.Segment{Offset: append(bt.I32Const(off), 0x0b), Init: bytes.Repeat([]byte{0xab}, n)}
	}
	segments := func(m *bt.Module) (int, []byte) {
		_, out, again := instrumentAgain(t, m.Bytes())
		r := &reader{b: again.Data}
		n, err := r.u32()
		require.NoError(t, err)
		mem, err := instantiated(t, out, true)
		require.NoError(t, err)
		return int(n), mem
	}
	linker := &bt.Module{Memory: &bt.Limits{Min: 1}}
	for i := range 100 {
		linker.Segments = append(linker.Segments, seg(int32(1000+i*43), 25)) // 18 zero bytes apart
	}
	n, mem := segments(linker)
	require.Equal(t, 1, n, "a linker's runs 18 bytes apart become one segment")
	require.Equal(t, byte(0xab), mem[1000+99*43+24])
	require.Zero(t, mem[1000+25], "the gap holds zeros")

	far := &bt.Module{Memory: &bt.Limits{Min: 1}, Segments: []bt.Segment{seg(0, 8), seg(8+maxDataGap+1, 8)}}
	n, _ = segments(far)
	require.Equal(t, 2, n, "a gap longer than maxDataGap is not filled")

	overlap := &bt.Module{Memory: &bt.Limits{Min: 1}, Segments: []bt.Segment{seg(0, 16), seg(8, 16), seg(40, 8)}}
	n, mem = segments(overlap)
	require.Equal(t, 3, n, "overlapping segments keep their order")
	require.Equal(t, byte(0xab), mem[20])

	counted := &bt.Module{Memory: &bt.Limits{Min: 1}, DataCount: true, Segments: []bt.Segment{seg(0, 8), seg(10, 8)}}
	n, _ = segments(counted)
	require.Equal(t, 2, n, "with a data count section, segment indices may be named")

	passive := &bt.Module{Memory: &bt.Limits{Min: 1}, Segments: []bt.Segment{seg(0, 8), {Init: []byte{1}, Passive: true}, seg(10, 8)}}
	n, _ = segments(passive)
	require.Equal(t, 3, n, "a passive segment keeps every index")

	past := &bt.Module{Memory: &bt.Limits{Min: 1}, Segments: []bt.Segment{seg(65530, 4), seg(65537, 0)}}
	_, out, _ := instrumentAgain(t, past.Bytes())
	_, err := instantiated(t, out, true)
	require.Error(t, err, "an empty segment past the end of memory still fails instantiation")
}

// TestCoalescedDataGoGuest: a real Go guest's data (tens of thousands of
// segments) becomes a few hundred, and the memory image the segments
// write is the same byte for byte.
func TestCoalescedDataGoGuest(t *testing.T) {
	wasm, err := os.ReadFile(testguest.Go(t, "guests/notes"))
	require.NoError(t, err)
	mod, _, again := instrumentAgain(t, wasm)
	before, ok := activeSegments(mod.Data)
	require.True(t, ok)
	after, ok := activeSegments(again.Data)
	require.True(t, ok)
	require.Greater(t, len(before), 10000)
	require.Less(t, len(after), len(before)/20, "segments before %d, after %d", len(before), len(after))
	image := func(segs []dataSegment) []byte {
		var mem []byte
		for _, s := range segs {
			if end := s.off + uint64(len(s.init)); end > uint64(len(mem)) {
				mem = append(mem, make([]byte, end-uint64(len(mem)))...)
			}
			copy(mem[s.off:], s.init)
		}
		return mem
	}
	require.True(t, bytes.Equal(image(before), image(after)), "the memory image differs")
}
