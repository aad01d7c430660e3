package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental/sysfs"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// TestHostFunctionBoundsDocumented: the guarded WASI module links exactly
// the allowlist, and abi/ABI.md §9.3 states a bound for every function a
// guest can import.
func TestHostFunctionBoundsDocumented(t *testing.T) {
	ctx := t.Context()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	require.NoError(t, instantiateWASI(ctx, r))
	var linked []string
	for name := range r.Module(wasiModule).ExportedFunctionDefinitions() {
		linked = append(linked, name)
	}
	slices.Sort(linked)
	require.Equal(t, sortedKeys(wasiImports), linked)

	b, err := os.ReadFile("../abi/ABI.md")
	require.NoError(t, err)
	_, sec, ok := strings.Cut(string(b), "### 9.3 Host functions")
	require.True(t, ok, "abi/ABI.md has no §9.3 Host functions")
	sec, _, _ = strings.Cut(sec, "\n## ")
	names := append(hostCallFuncs(), hostCallFunc{"mcpw_v1", "http_fetch"}, hostCallFunc{"mcpw_v1", "http_read"})
	for _, f := range names {
		require.Regexp(t, regexp.MustCompile("`"+regexp.QuoteMeta(f.name)+"`"), sec, "ABI §9.3 states no bound for %s.%s", f.module, f.name)
	}
}

// forwardGuest encodes a module with memory of the given pages that
// exports "f", which calls the import module.name with its own arguments.
func forwardGuest(module, name string, params, results []api.ValueType, pages uint32) []byte {
	body := []byte{0} // no locals
	for i := range params {
		body = appendULEB(append(body, 0x20), uint64(i))
	}
	body = append(body, 0x10, 0, 0x0b)
	ft := appendULEB([]byte{0x60}, uint64(len(params)))
	ft = appendULEB(append(ft, params...), uint64(len(results)))
	ft = append(ft, results...)
	str := func(s string) []byte { return append(appendULEB(nil, uint64(len(s))), s...) }
	secs := [][2][]byte{
		{{1}, append([]byte{1}, ft...)},
		{{2}, append(append(append([]byte{1}, str(module)...), str(name)...), 0, 0)},
		{{3}, {1, 0}},
		{{5}, appendULEB([]byte{1, 0}, uint64(pages))},
		{{7}, append(append(append(append([]byte{2}, str("memory")...), 2, 0), str("f")...), 0, 1)},
		{{10}, append(append([]byte{1}, appendULEB(nil, uint64(len(body)))...), body...)},
	}
	out := []byte("\x00asm\x01\x00\x00\x00")
	for _, s := range secs {
		out = append(appendULEB(append(out, s[0][0]), uint64(len(s[1]))), s[1]...)
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
	def := r.Module(wasiModule).ExportedFunctionDefinitions()[name]
	cfg := wazero.NewModuleConfig().WithName("")
	if dir != "" {
		cfg = cfg.WithFSConfig(wazero.NewFSConfig().(sysfs.FSConfig).WithSysFSMount(hostCallMount(t, dir), "/data"))
	}
	mod, err := r.InstantiateWithConfig(ctx, forwardGuest(wasiModule, name, def.ParamTypes(), def.ResultTypes(), 64), cfg)
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
