package runtime

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/compile"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/grants"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/rootfs"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/wasiguard"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	goruntime "runtime"
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

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// FuzzHostCalls drives generated guests that call one host function in a
// loop with extreme arguments (see hostCallGuest), each in a child process
// (the test binary re-run with hostCallEnv set), and fails if the call ends
// later than hostCallStopBound after its deadline, if the child's peak RSS
// passes hostCallRSSBudget, or if a host function panicked with a Go runtime
// error. Its seed corpus runs in every go test.
func FuzzHostCalls(f *testing.F) {
	if goruntime.GOOS != "linux" {
		f.Skip("reads VmHWM from /proc/self/status")
	}
	for _, s := range hostCallSeeds() {
		f.Add(s)
	}
	dir := hostCallDir(f)
	f.Fuzz(func(t *testing.T, prog []byte) {
		ctx, cancel := context.WithTimeout(t.Context(), hostCallOuterBound)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHostCallChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), hostCallEnv+"="+hex.EncodeToString(prog), hostCallDirEnv+"="+dir)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: the child did not finish within %s: %s", describeHostCall(prog), hostCallOuterBound, out)
		late, hwm, msg := parseHostCallReport(t, string(out))
		require.NotContains(t, msg, "runtime error", "a host function panicked: %s", msg)
		require.Less(t, late, hostCallStopBound, "%s outlived its deadline (%s)", describeHostCall(prog), msg)
		require.Less(t, hwm, int64(hostCallRSSBudget), "%s: child peak RSS", describeHostCall(prog))
		t.Logf("%s: ended %s after its deadline, peak RSS %d MiB: %.80s", describeHostCall(prog), late, hwm>>20, msg)
	})
}

const (
	hostCallEnv    = "MCPW_HOSTCALL_CHILD"
	hostCallDirEnv = "MCPW_HOSTCALL_DIR"
	// hostCallDeadline is the deadline of the child's call.
	hostCallDeadline = 100 * time.Millisecond
	// hostCallStopBound is how long past its deadline a call may end: the
	// documented bound (abi/ABI.md §9.3, a few milliseconds on an idle core)
	// with room for a machine whose cores are all busy.
	hostCallStopBound = 10 * time.Second
	// hostCallOuterBound kills a child whose call does not end at all.
	hostCallOuterBound = testkit.Wait
	// hostCallMemory is the guest's memory cap; hostCallRSSBudget the
	// child's peak RSS budget: that memory, the test binary and the host's
	// bounded buffers.
	hostCallMemory    = 64 << 20
	hostCallRSSBudget = hostCallMemory + 160<<20
)

// hostCallFunc is a host function a generated guest may import.
type hostCallFunc struct{ module, name string }

// hostCallFuncs lists every import a provider may link: the WASI
// allowlist, the mcpw_v1 imports that need no grant, and env.abort.
func hostCallFuncs() []hostCallFunc {
	var out []hostCallFunc
	for _, n := range sortedKeys(wasiImports) {
		out = append(out, hostCallFunc{wasiModule, n})
	}
	for _, n := range sortedKeys(abiImports) {
		if !httpImports[n] {
			out = append(out, hostCallFunc{abi.ImportModule, n})
		}
	}
	return append(out, hostCallFunc{"env", "abort"})
}

// A program is: byte 0 the function (index into hostCallFuncs, modulo),
// byte 1 the guest's memory in 256 KiB steps (0: 64 KiB, 255: 64 MiB),
// then each parameter, 8 bytes little-endian (an i32 takes the low 4;
// missing bytes are zero). The special values 0xffffffff_fffffffe,
// 0xffffffff_fffffffd and 0xffffffff_fffffffc stand for "the memory size",
// "the memory size less 64 KiB" and "that over 8" (the iovecs it holds), so
// seeds reach memory-sized extremes at any size.
func hostCallSeeds() [][]byte {
	idx := func(mod, name string) byte {
		for i, f := range hostCallFuncs() {
			if f.module == mod && f.name == name {
				return byte(i)
			}
		}
		panic("no host function " + name)
	}
	const mem, memLess, memIOVecs = 0xffff_ffff_ffff_fffe, 0xffff_ffff_ffff_fffd, 0xffff_ffff_ffff_fffc
	prog := func(mod, name string, args ...uint64) []byte {
		b := []byte{idx(mod, name), 255}
		for _, a := range args {
			b = binary.LittleEndian.AppendUint64(b, a)
		}
		return b
	}
	w := wasiModule
	return [][]byte{
		prog(w, "random_get", 0x10000, memLess),
		prog(w, "fd_write", 1, 0x10000, memIOVecs, 0x100),
		prog(w, "fd_read", 4, 0x10000, memIOVecs, 0x100),
		prog(w, "fd_write", 1, 0x10000, 0x7fff_ffff, 0x100),
		prog(w, "fd_read", 0, 0x10000, 1<<20, 0x100),
		prog(w, "poll_oneoff", 0x10000, 0x20000, 512<<10, 0x100),
		prog(w, "poll_oneoff", 0x10000, 0x20000, 0x555_5556, 0x100), // n*48 wraps to 32
		prog(w, "fd_readdir", 3, 0x10000, memLess, 0, 0x100),
		prog(w, "fd_readdir", 3, 0x10000, 0xffff_ffff, 1<<40, 0x100),
		prog(w, "fd_pread", 4, 0x10000, 1<<20, 0, 0x100),
		prog(w, "path_open", 3, 0, 0x10000, memLess, 0, 6, 0, 0, 0x100),
		prog(w, "path_filestat_get", 3, 1, 0x10000, memLess, 0x100),
		prog(w, "path_readlink", 3, 0x10000, 4096, 0x20000, memLess, 0x100),
		prog(w, "fd_prestat_dir_name", 3, 0x10000, memLess),
		prog(w, "args_get", 0x10000, 0x20000),
		prog(w, "environ_get", 0x10000, 0x20000),
		prog(w, "sched_yield"),
		prog(w, "clock_time_get", 1, 0, 0x100),
		prog(w, "proc_exit", 0),
		prog(abi.ImportModule, abi.ImportOutputWrite, 0x10000, memLess),
		prog(abi.ImportModule, abi.ImportLog, 3, 0x10000, memLess),
		prog(abi.ImportModule, abi.ImportConfigGet, 0x10000, memLess, 0x10000, memLess),
		prog(abi.ImportModule, abi.ImportContentWrite, 0x10000, memLess),
		prog(abi.ImportModule, abi.ImportInputRead, 0x10000, memLess),
		prog("env", "abort", 0, 0, 1, 1),
	}
}

func describeHostCall(prog []byte) string {
	if len(prog) == 0 {
		return "empty program"
	}
	fs := hostCallFuncs()
	f := fs[int(prog[0])%len(fs)]
	return fmt.Sprintf("%s.%s (program %x)", f.module, f.name, prog)
}

func parseHostCallReport(t *testing.T, out string) (late time.Duration, hwm int64, msg string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "hostcall-report "); ok {
			f := strings.SplitN(rest, " ", 3)
			require.Len(t, f, 3, "report: %q", line)
			ns, err := strconv.ParseInt(f[0], 10, 64)
			require.NoError(t, err)
			kb, err := strconv.ParseInt(f[1], 10, 64)
			require.NoError(t, err)
			return time.Duration(ns), kb << 10, f[2]
		}
	}
	t.Fatalf("child printed no report:\n%s", out)
	return 0, 0, ""
}

// TestHostCallChild is the child of FuzzHostCalls: it runs the program in
// hostCallEnv and prints how late the call ended, its peak RSS and the
// call's error.
func TestHostCallChild(t *testing.T) {
	enc, ok := os.LookupEnv(hostCallEnv)
	if !ok {
		t.Skip("run by FuzzHostCalls")
	}
	prog, err := hex.DecodeString(enc)
	require.NoError(t, err)
	late, callErr := runHostCall(t, prog)
	hwm, err := peakRSSKiB()
	require.NoError(t, err)
	msg := "ok"
	if callErr != nil {
		msg = strings.ReplaceAll(callErr.Error(), "\n", " ")
	}
	fmt.Printf("hostcall-report %d %d %s\n", late.Nanoseconds(), hwm, msg)
}

func peakRSSKiB() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/self/status")
}

// runHostCall links the host modules as a provider does, with a granted
// directory (fd 3: a sparse 60 MiB file "big", opened as fd 4 by the guest
// before its loop, and 5,000 empty files), instantiates the generated guest
// and calls its loop under hostCallDeadline.
func runHostCall(t *testing.T, prog []byte) (time.Duration, error) {
	if len(prog) == 0 {
		prog = []byte{0}
	}
	fns := hostCallFuncs()
	fn := fns[int(prog[0])%len(fns)]
	pages := uint32(1)
	if len(prog) > 1 {
		pages = 1 + uint32(prog[1])*4
	}
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().
		WithCoreFeatures(api.CoreFeaturesV2).WithMemoryLimitPages(hostCallMemory/pageSize))
	defer r.Close(ctx)
	require.NoError(t, wasiguard.Instantiate(ctx, r, sortedKeys(wasiImports)))
	require.NoError(t, instantiateHostModules(ctx, r, nil))
	def := hostCallDef(t, r, fn)
	wasm := hostCallGuest(fn, def.ParamTypes(), def.ResultTypes(), pages, prog[min(2, len(prog)):])
	prep, err := prepare(wasm, testkit.Limits(NewProviderConfig()).WithMemoryLimit(hostCallMemory), compile.RewriteCache{})
	require.NoError(t, err)
	mountFS := hostCallMount(t, os.Getenv(hostCallDirEnv))
	cfg := wazero.NewModuleConfig().WithName("").
		WithFSConfig(wazero.NewFSConfig().(sysfs.FSConfig).WithSysFSMount(mountFS, "/data"))
	compiled, err := r.CompileModule(ctx, prep.wasm)
	require.NoError(t, err)
	st := &callState{outLimit: 1 << 20, config: map[string]string{"k": "v"}}
	st.input = make([]byte, 4<<10)
	cctx, cancel := context.WithTimeout(withState(ctx, st), hostCallDeadline)
	defer cancel()
	dl, _ := cctx.Deadline()
	mod, err := r.InstantiateModule(cctx, compiled, cfg)
	if err != nil {
		return time.Since(dl), err
	}
	_, err = mod.ExportedFunction("run").Call(cctx)
	return time.Since(dl), err
}

// hostCallDef returns fn as the host links it.
func hostCallDef(t *testing.T, r wazero.Runtime, fn hostCallFunc) api.FunctionDefinition {
	m := r.Module(fn.module)
	require.NotNil(t, m, fn.module)
	if d, ok := m.ExportedFunctionDefinitions()[fn.name]; ok {
		return d
	}
	t.Fatalf("%s.%s is not linked", fn.module, fn.name)
	return nil
}

// hostCallDir makes the directory the children are granted: a sparse
// 60 MiB file "big" and 5,000 empty files.
func hostCallDir(t testing.TB) string {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "big"))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(60<<20))
	require.NoError(t, f.Close())
	for i := range 5000 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)), nil, 0o644))
	}
	return dir
}

// hostCallMount grants dir as a provider grants a directory.
func hostCallMount(t *testing.T, dir string) *rootfs.FS {
	plans, err := grants.Plan([]grants.Dir{{Host: dir, Guest: "/data"}})
	require.NoError(t, err)
	fsys, closer, err := rootfs.Open(plans[0].Host, plans[0].Only, plans[0].Granted[0])
	require.NoError(t, err)
	t.Cleanup(func() { _ = closer.Close() })
	return fsys
}

// hostCallGuest encodes a module that imports fn (function 0) and
// path_open (function 1), opens "big" in the granted directory (fd 4),
// then calls fn with the arguments in args, forever, from its export "run".
func hostCallGuest(fn hostCallFunc, params, results []api.ValueType, pages uint32, args []byte) []byte {
	const mem, memLess, memIOVecs = 0xffff_ffff_ffff_fffe, 0xffff_ffff_ffff_fffd, 0xffff_ffff_ffff_fffc
	size := uint64(pages) * pageSize
	var body []byte
	push := func(t api.ValueType, v uint64) {
		if t == api.ValueTypeI64 {
			body = wasmbintest.S64(append(body, 0x42), int64(v))
		} else {
			body = wasmbintest.S64(append(body, 0x41), int64(int32(uint32(v))))
		}
	}
	// path_open(3, 0, "big"@8, 3, 0, FD_READ|FD_SEEK, 0, 0, &fd@0); drop
	i32, i64 := api.ValueTypeI32, api.ValueTypeI64
	for _, a := range []struct {
		t api.ValueType
		v uint64
	}{{i32, 3}, {i32, 0}, {i32, 8}, {i32, 3}, {i32, 0}, {i64, 6}, {i64, 0}, {i32, 0}, {i32, 0}} {
		push(a.t, a.v)
	}
	body = append(body, 0x10, 1, 0x1a)
	body = append(body, 0x03, 0x40) // loop
	for i, t := range params {
		var v uint64
		if len(args) >= 8*(i+1) {
			v = binary.LittleEndian.Uint64(args[8*i:])
		} else if len(args) > 8*i {
			tail := make([]byte, 8)
			copy(tail, args[8*i:])
			v = binary.LittleEndian.Uint64(tail)
		}
		switch v {
		case mem:
			v = size
		case memLess:
			v = size - min(size, 0x10000)
		case memIOVecs:
			v = (size - min(size, 0x10000)) / 8
		}
		push(t, v)
	}
	body = append(body, 0x10, 0)
	for range results {
		body = append(body, 0x1a)
	}
	body = append(body, 0x0c, 0, 0x0b, 0x0b) // br 0; end loop; end func
	funcType := func(ps, rs []api.ValueType) []byte {
		b := wasmbintest.U32([]byte{0x60}, uint32(len(ps)))
		b = append(b, ps...)
		b = wasmbintest.U32(b, uint32(len(rs)))
		return append(b, rs...)
	}
	openParams := []api.ValueType{i32, i32, i32, i32, i32, i64, i64, i32, i32}
	types := append([]byte{3}, funcType(params, results)...)
	types = append(types, funcType(openParams, []api.ValueType{i32})...)
	types = append(types, funcType(nil, nil)...)
	name := func(s string) []byte { return append(wasmbintest.U32(nil, uint32(len(s))), s...) }
	imports := []byte{2}
	imports = append(append(append(imports, name(fn.module)...), name(fn.name)...), 0x00, 0)
	imports = append(append(append(imports, name(wasiModule)...), name("path_open")...), 0x00, 1)
	memory := wasmbintest.U32([]byte{1, 0x00}, uint32(pages))
	exports := append(append([]byte{2}, name("memory")...), 0x02, 0)
	exports = append(append(exports, name("run")...), 0x00, 2)
	code := wasmbintest.U32(nil, uint32(len(body)+1))
	code = append(append([]byte{1}, code...), 0) // one body, no locals
	code = append(code, body...)
	data := append([]byte{1, 0x00, 0x41, 8, 0x0b}, name("big")...)
	out := []byte("\x00asm\x01\x00\x00\x00")
	for _, sec := range []struct {
		id byte
		b  []byte
	}{{1, types}, {2, imports}, {3, []byte{1, 2}}, {5, memory}, {7, exports}, {10, code}, {11, data}} {
		out = append(wasmbintest.U32(append(out, sec.id), uint32(len(sec.b))), sec.b...)
	}
	return out
}

// TestHostFunctionBoundsDocumented: the guarded WASI module links exactly
// the allowlist, and abi/ABI.md §9.3 states a bound for every function a
// guest can import.
func TestHostFunctionBoundsDocumented(t *testing.T) {
	ctx := t.Context()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	require.NoError(t, wasiguard.Instantiate(ctx, r, sortedKeys(wasiImports)))
	var linked []string
	for name := range r.Module(wasiguard.Module).ExportedFunctionDefinitions() {
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
