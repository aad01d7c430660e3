package wasiguard

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin/wasmbintest"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental/sysfs"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// instantiateWASI links the guard with every function wazero has (the
// host links its allowlist).
func instantiateWASI(ctx context.Context, r wazero.Runtime) error {
	inner := r.NewHostModuleBuilder("wasi-all")
	wasi_snapshot_preview1.NewFunctionExporter().ExportFunctions(inner)
	compiled, err := inner.Compile(ctx)
	if err != nil {
		return err
	}
	defer compiled.Close(ctx)
	names := slices.Sorted(maps.Keys(compiled.ExportedFunctions()))
	return Instantiate(ctx, r, names)
}

// forwardGuest encodes a module with memory of the given pages that
// exports "f", which calls the import module.name with its own arguments.
func forwardGuest(module, name string, params, results []api.ValueType, pages uint32) []byte {
	body := []byte{0} // no locals
	for i := range params {
		body = wasmbintest.U32(append(body, 0x20), uint32(i))
	}
	body = append(body, 0x10, 0, 0x0b)
	ft := wasmbintest.U32([]byte{0x60}, uint32(len(params)))
	ft = wasmbintest.U32(append(ft, params...), uint32(len(results)))
	ft = append(ft, results...)
	str := func(s string) []byte { return append(wasmbintest.U32(nil, uint32(len(s))), s...) }
	secs := [][2][]byte{
		{{1}, append([]byte{1}, ft...)},
		{{2}, append(append(append([]byte{1}, str(module)...), str(name)...), 0, 0)},
		{{3}, {1, 0}},
		{{5}, wasmbintest.U32([]byte{1, 0}, uint32(pages))},
		{{7}, append(append(append(append([]byte{2}, str("memory")...), 2, 0), str("f")...), 0, 1)},
		{{10}, append(append([]byte{1}, wasmbintest.U32(nil, uint32(len(body)))...), body...)},
	}
	out := []byte("\x00asm\x01\x00\x00\x00")
	for _, s := range secs {
		out = append(wasmbintest.U32(append(out, s[0][0]), uint32(len(s[1]))), s[1]...)
	}
	return out
}

// guardedCall instantiates a forwarding guest of the WASI function name,
// linked to the guarded module (guarded) or to wazero's own, with dir (if
// any) preopened as fd 3.
func guardedCall(t *testing.T, guarded bool, name, dir string) (api.Module, api.Function) {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	r := wazero.NewRuntime(ctx)
	t.Cleanup(func() { _ = r.Close(ctx) })
	if guarded {
		require.NoError(t, instantiateWASI(ctx, r))
	} else {
		_, err := wasi_snapshot_preview1.Instantiate(ctx, r)
		require.NoError(t, err)
	}
	def := r.Module(Module).ExportedFunctionDefinitions()[name]
	cfg := wazero.NewModuleConfig().WithName("")
	if dir != "" {
		cfg = cfg.WithFSConfig(wazero.NewFSConfig().(sysfs.FSConfig).WithSysFSMount(sysfs.DirFS(dir), "/data"))
	}
	mod, err := r.InstantiateWithConfig(ctx, forwardGuest(Module, name, def.ParamTypes(), def.ResultTypes(), 64), cfg)
	require.NoError(t, err)
	return mod, mod.ExportedFunction("f")
}

// TestReaddirChunksListWhole: with buffers larger than a chunk, in sizes
// that cut entries at chunk edges, the guarded fd_readdir lists every
// entry exactly once, and each call's bytes and bufused are what wazero's
// own fd_readdir gives.
func TestReaddirChunksListWhole(t *testing.T) {
	dir := t.TempDir()
	var want []string
	for i := range 9000 {
		n := strings.Repeat("n", 1+i%200) + "-" + string(rune('a'+i%26)) + "-" + strconv.Itoa(i)
		want = append(want, n)
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), nil, 0o644))
	}
	slices.Sort(want)
	for _, bufLen := range []uint32{readdirChunk + 1, readdirChunk + 23, 3*readdirChunk - 7, 1 << 20, 2 << 20} {
		gmod, gf := guardedCall(t, true, "fd_readdir", dir)
		wmod, wf := guardedCall(t, false, "fd_readdir", dir)
		var got []string
		cookie := uint64(0)
		for calls := 0; ; calls++ {
			require.Less(t, calls, 10000)
			res := callReaddir(t, gmod, gf, bufLen, cookie)
			ref := callReaddir(t, wmod, wf, bufLen, cookie)
			require.Equal(t, sha256.Sum256(ref), sha256.Sum256(res), "buffer %d, cookie %d: guarded result differs from wazero's", bufLen, cookie)
			names, next, end := parseWASIDirents(res, bufLen)
			got = append(got, names...)
			if end {
				break
			}
			cookie = next
		}
		got = slices.DeleteFunc(got, func(s string) bool { return s == "." || s == ".." })
		slices.Sort(got)
		require.Equal(t, want, got, "buffer %d", bufLen)
	}
}

// callReaddir calls fd_readdir(3, 0x10000, bufLen, cookie, 0x100) and
// returns the bufused bytes it wrote.
func callReaddir(t *testing.T, mod api.Module, f api.Function, bufLen uint32, cookie uint64) []byte {
	t.Helper()
	res, err := f.Call(t.Context(), 3, 0x10000, uint64(bufLen), cookie, 0x100)
	require.NoError(t, err)
	require.Zero(t, res[0], "errno")
	used, ok := mod.Memory().ReadUint32Le(0x100)
	require.True(t, ok)
	b, ok := mod.Memory().Read(0x10000, used)
	require.True(t, ok)
	return append([]byte(nil), b...)
}

// parseWASIDirents reads entries as a WASI libc does: whole entries, the
// cookie to resume from after the last, and whether the directory ended.
func parseWASIDirents(b []byte, bufLen uint32) (names []string, next uint64, end bool) {
	for pos := 0; len(b)-pos >= direntHeader; {
		n := int(binary.LittleEndian.Uint32(b[pos+16:]))
		if pos+direntHeader+n > len(b) {
			break
		}
		next = binary.LittleEndian.Uint64(b[pos:])
		names = append(names, string(b[pos+direntHeader:pos+direntHeader+n]))
		pos += direntHeader + n
	}
	return names, next, uint32(len(b)) < bufLen
}

// TestIOVecsShortTransfer: fd_pread past 1 MiB or 1,024 iovecs is a short
// read of exactly the bytes a longer read starts with, and the guest's
// iovec array is as it was.
func TestIOVecsShortTransfer(t *testing.T) {
	dir := t.TempDir()
	content := make([]byte, 3<<20)
	for i := range content {
		content[i] = byte(i * 7)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), content, 0o644))
	cases := []struct {
		name  string
		iovs  [][2]uint32 // buf, len
		nread uint32
	}{
		{"one big iovec", [][2]uint32{{0x100000, 3 << 20}}, maxIOBytes},
		{"cut inside the second", [][2]uint32{{0x100000, 700 << 10}, {0x300000, 700 << 10}}, maxIOBytes},
		{"2000 iovecs of 16 bytes", repeatIOVec(2000, 16), maxIOVecs * 16},
		{"small, whole", [][2]uint32{{0x100000, 100}, {0x200000, 200}}, 300},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mod, pread := guardedPread(t, dir)
			mem := mod.Memory()
			arr := make([]byte, 0, 8*len(c.iovs))
			for _, v := range c.iovs {
				arr = binary.LittleEndian.AppendUint32(arr, v[0])
				arr = binary.LittleEndian.AppendUint32(arr, v[1])
			}
			require.True(t, mem.Write(0x10000, arr))
			res, err := pread.Call(t.Context(), 4, 0x10000, uint64(len(c.iovs)), 0, 0x100)
			require.NoError(t, err)
			require.Zero(t, res[0], "errno")
			nread, _ := mem.ReadUint32Le(0x100)
			require.Equal(t, c.nread, nread)
			after, _ := mem.Read(0x10000, uint32(len(arr)))
			require.Equal(t, arr, after, "the iovec array was not restored")
			off := uint32(0)
			for _, v := range c.iovs {
				n := min(v[1], nread-off)
				got, _ := mem.Read(v[0], n)
				require.Equal(t, content[off:off+n], got)
				if off += n; off == nread {
					break
				}
			}
		})
	}
}

func repeatIOVec(n int, l uint32) [][2]uint32 {
	out := make([][2]uint32, n)
	for i := range out {
		out[i] = [2]uint32{0x100000 + uint32(i)*l, l}
	}
	return out
}

// guardedPread instantiates a guest (64 MiB of memory) that forwards to the
// guarded fd_pread, with dir granted and its file "f" opened as fd 4.
func guardedPread(t *testing.T, dir string) (api.Module, api.Function) {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	r := wazero.NewRuntime(ctx)
	t.Cleanup(func() { _ = r.Close(ctx) })
	require.NoError(t, instantiateWASI(ctx, r))
	defs := r.Module(Module).ExportedFunctionDefinitions()
	cfg := wazero.NewModuleConfig().WithName("").
		WithFSConfig(wazero.NewFSConfig().(sysfs.FSConfig).WithSysFSMount(sysfs.DirFS(dir), "/data"))
	mod, err := r.InstantiateWithConfig(ctx, forwardGuest(Module, "fd_pread", defs["fd_pread"].ParamTypes(), defs["fd_pread"].ResultTypes(), 1024), cfg)
	require.NoError(t, err)
	require.True(t, mod.Memory().Write(0x200, []byte("f")))
	// Each module has its own file table: open "f" in the reader's own by
	// calling the guarded path_open with the reader as the caller.
	res := make([]uint64, 9)
	copy(res, []uint64{3, 0, 0x200, 1, 0, 6, 0, 0, 0x204})
	guardWASIByName(t, r, "path_open").Call(ctx, mod, res)
	require.Zero(t, res[0], "path_open errno")
	fd, _ := mod.Memory().ReadUint32Le(0x204)
	require.Equal(t, uint32(4), fd)
	return mod, mod.ExportedFunction("f")
}

// guardWASIByName returns the guarded Go function of name as linked in r.
func guardWASIByName(t *testing.T, r wazero.Runtime, name string) api.GoModuleFunction {
	t.Helper()
	fn, ok := r.Module(Module).ExportedFunctionDefinitions()[name].GoFunction().(api.GoModuleFunction)
	require.True(t, ok)
	return fn
}

// TestRandomChunksSameBytes: the chunked random_get fills the buffer with
// the bytes one call of wazero's fills it with (its deterministic source).
func TestRandomChunksSameBytes(t *testing.T) {
	n := uint64(5*randomChunk + 123)
	var got [2][]byte
	for i, guarded := range []bool{true, false} {
		mod, f := guardedCall(t, guarded, "random_get", "")
		res, err := f.Call(t.Context(), 0x10000, n)
		require.NoError(t, err)
		require.Zero(t, res[0])
		b, _ := mod.Memory().Read(0x10000, uint32(n))
		got[i] = append([]byte(nil), b...)
	}
	require.Equal(t, got[1], got[0])
	require.NotEqual(t, make([]byte, n), got[0])
}

// TestGuardRefusals: counts past a limit fail with the errno WASI names,
// at the limit the call goes through, and a range outside memory faults.
func TestGuardRefusals(t *testing.T) {
	_, poll := guardedCall(t, true, "poll_oneoff", "")
	res, err := poll.Call(t.Context(), 0x10000, 0x10000+maxSubscriptions*48, maxSubscriptions+1, 0x100)
	require.NoError(t, err)
	require.Equal(t, uint64(errnoInval), res[0])
	res, err = poll.Call(t.Context(), 0x10000, 0x10000+maxSubscriptions*48, maxSubscriptions, 0x100)
	require.NoError(t, err)
	require.Zero(t, res[0])

	_, open := guardedCall(t, true, "path_open", t.TempDir())
	res, err = open.Call(t.Context(), 3, 0, 0x10000, maxPath+1, 0, 6, 0, 0, 0x100)
	require.NoError(t, err)
	require.Equal(t, uint64(errnoNameTooLong), res[0])
	res, err = open.Call(t.Context(), 3, 0, 0x10000, maxPath, 0, 6, 0, 0, 0x100)
	require.NoError(t, err)
	require.NotEqual(t, uint64(errnoNameTooLong), res[0], "a path of PATH_MAX bytes reaches the filesystem")

	_, write := guardedCall(t, true, "fd_write", "")
	res, err = write.Call(t.Context(), 1, 64*65536-8, 2, 0x100)
	require.NoError(t, err)
	require.Equal(t, uint64(errnoFault), res[0])
}

// BenchmarkWASIGuard measures what the guard adds to a cheap WASI call
// (a 32-byte random_get, a one-iovec 64-byte fd_write to stdout) made from
// a guest, against wazero's function alone.
func BenchmarkWASIGuard(b *testing.B) {
	calls := []struct {
		name string
		args []uint64
		init func(api.Memory)
	}{
		{"random_get", []uint64{0x10000, 32}, nil},
		{"fd_write", []uint64{1, 0x100, 1, 0x200}, func(m api.Memory) {
			m.WriteUint32Le(0x100, 0x10000)
			m.WriteUint32Le(0x104, 64)
		}},
	}
	for _, c := range calls {
		for _, guarded := range []bool{true, false} {
			name := c.name + "/wazero"
			if guarded {
				name = c.name + "/guarded"
			}
			b.Run(name, func(b *testing.B) {
				mod, f := wasiBenchGuest(b, guarded, c.name)
				if c.init != nil {
					c.init(mod.Memory())
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
				defer cancel()
				for b.Loop() {
					if _, err := f.Call(ctx, c.args...); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func wasiBenchGuest(b *testing.B, guarded bool, name string) (api.Module, api.Function) {
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	b.Cleanup(func() { _ = r.Close(ctx) })
	if guarded {
		require.NoError(b, instantiateWASI(ctx, r))
	} else {
		_, err := wasi_snapshot_preview1.Instantiate(ctx, r)
		require.NoError(b, err)
	}
	def := r.Module(Module).ExportedFunctionDefinitions()[name]
	mod, err := r.InstantiateWithConfig(ctx, forwardGuest(Module, name, def.ParamTypes(), def.ResultTypes(), 2), wazero.NewModuleConfig().WithName(""))
	require.NoError(b, err)
	return mod, mod.ExportedFunction("f")
}
