package runtime_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// The hostile suite loads the fixtures of testdata/hostile (hand-written WAT,
// see its README) and checks that each misbehaviour costs exactly one typed
// error: a load error wrapping a runtime sentinel, or a call error wrapping
// an abi kind after which the next good call on the same provider succeeds
// on a fresh instance. It runs as one test so that a goroutine leak anywhere
// in it is caught.
func TestHostile(t *testing.T) {
	requireNoGoroutineLeak(t)
	t.Run("load", testHostileLoad)
	t.Run("size", testHostileSize)
	t.Run("call", testHostileCalls)
	t.Run("oob", testHostileOOB)
	t.Run("payload", testHostilePayloads)
}

type configFunc func(t *testing.T, c runtime.ProviderConfig) runtime.ProviderConfig

type loadCase struct {
	file string
	cfg  configFunc
	want []error // every one must match; nil: the load succeeds
}

var loadCases = []loadCase{
	// 1. loops and traps while initializing
	{file: "loop_describe.wasm", want: []error{runtime.ErrInit, abi.ErrTimeout}},
	{file: "init_imports.wasm", want: []error{runtime.ErrInit, abi.ErrViolation}}, // host imports trap in _initialize
	{file: "loop_initialize.wasm", want: []error{runtime.ErrInit, abi.ErrTimeout}},
	{file: "loop_start.wasm", want: []error{runtime.ErrInit, abi.ErrTimeout}},
	{file: "exprec_describe.wasm", want: []error{runtime.ErrInit, abi.ErrTimeout}}, // no loop: stopped at a function entry
	{file: "trap_initialize.wasm", want: []error{runtime.ErrInit, abi.ErrTrap}},
	{file: "trap_start.wasm", want: []error{runtime.ErrInit, abi.ErrTrap}},
	{file: "grow_start.wasm", want: []error{runtime.ErrInit, abi.ErrTrap}},
	{file: "describe_bad.wasm", want: []error{runtime.ErrInit}},
	{file: "describe_error.wasm", want: []error{runtime.ErrInit}},
	// 2. memory declarations
	{file: "big_min.wasm", want: []error{runtime.ErrLimit}},
	{file: "big_max.wasm"},
	// 7. exports
	{file: "no_memory.wasm", want: []error{runtime.ErrMissingExport}},
	{file: "no_describe.wasm", want: []error{runtime.ErrMissingExport}},
	{file: "op_not_exported.wasm", want: []error{runtime.ErrMissingExport}},
	{file: "op_bad_sig.wasm", want: []error{runtime.ErrMissingExport}},
	{file: "init_bad_sig.wasm", want: []error{runtime.ErrMissingExport}},
	// 8. ABI version
	{file: "abi_v2.wasm", want: []error{runtime.ErrABIVersion}},
	{file: "abi_v2_exports.wasm", want: []error{runtime.ErrABIVersion}},
	// 9. imports
	{file: "import_path_open.wasm", want: []error{runtime.ErrForbiddenImport}},
	{file: "import_path_open.wasm", cfg: grantDir},
	{file: "import_sock_accept.wasm", want: []error{runtime.ErrForbiddenImport}},
	{file: "import_env_system.wasm", want: []error{runtime.ErrForbiddenImport}},
	{file: "import_mcpw_unknown.wasm", want: []error{runtime.ErrForbiddenImport}},
	{file: "import_bad_sig.wasm", want: []error{runtime.ErrForbiddenImport}},
	{file: "import_memory.wasm", want: []error{runtime.ErrForbiddenImport}},
	{file: "import_global.wasm", want: []error{runtime.ErrForbiddenImport}},
	{file: "import_table.wasm", want: []error{runtime.ErrForbiddenImport}},
	{file: "env_abort.wasm"},
	{file: "wasi_stdout.wasm"},
	// 10. not a core module
	{file: "component.wasm", want: []error{runtime.ErrNotModule}},
	{file: "wasm_v2.wasm", want: []error{runtime.ErrNotModule}},
	{file: "garbage.wasm", want: []error{runtime.ErrNotModule}},
	{file: "truncated.wasm", want: []error{runtime.ErrNotModule}},
	{file: "good.wat", want: []error{runtime.ErrNotModule}},
}

func grantDir(t *testing.T, c runtime.ProviderConfig) runtime.ProviderConfig {
	return c.WithGrants(runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: t.TempDir(), GuestPath: "/data"}}})
}

func testHostileLoad(t *testing.T) {
	for _, c := range loadCases {
		name := strings.TrimSuffix(strings.TrimSuffix(c.file, ".wasm"), ".wat")
		if c.cfg != nil {
			name += "/granted"
		}
		t.Run(name, func(t *testing.T) {
			cfg := hostileConfig()
			deadline := slices.ContainsFunc(c.want, func(e error) bool { return errors.Is(e, abi.ErrTimeout) })
			if deadline {
				cfg = hostileDeadlines(cfg)
			}
			if c.cfg != nil {
				cfg = c.cfg(t, cfg)
			}
			rt := newHostileRuntime(t, &logSink{})
			// The bound is about initialization: the compile worker's start
			// (a second under -race on a busy machine) comes first, untimed.
			_ = rt.Precompile(t.Context(), fixture(t, c.file), cfg)
			start := time.Now()
			p, err := loadHostile(t, rt, c.file, cfg)
			if deadline {
				require.Less(t, time.Since(start), hostileTimeout+defaultOverrun, "load must respect the init deadline")
			}
			if c.want == nil {
				require.NoError(t, err)
				requireGoodCalls(t, p)
				return
			}
			require.Error(t, err)
			for _, want := range c.want {
				require.ErrorIs(t, err, want)
			}
			requireCleanMessage(t, err.Error())
		})
	}
}

// testHostileSize feeds modules over the size limit, generated here rather
// than committed: bytes to Load, and a sparse file to LoadFile, which must
// refuse it before reading it.
func testHostileSize(t *testing.T) {
	const size = 40 << 20
	ctx := t.Context()
	rt := newHostileRuntime(t, &logSink{})
	big := append([]byte("\x00asm\x01\x00\x00\x00"), make([]byte, size)...)
	_, err := rt.Load(ctx, "big", big, testkit.Limits(runtime.NewProviderConfig()))
	require.ErrorIs(t, err, runtime.ErrModuleTooLarge)

	path := filepath.Join(t.TempDir(), "big.wasm")
	f, err := os.Create(path)
	require.NoError(t, err)
	_, err = f.Write(big[:8])
	require.NoError(t, err)
	require.NoError(t, f.Truncate(size))
	require.NoError(t, f.Close())
	_, err = rt.LoadFile(ctx, path, testkit.Limits(runtime.NewProviderConfig()))
	require.ErrorIs(t, err, runtime.ErrModuleTooLarge)

	_, err = rt.Load(ctx, "empty", nil, testkit.Limits(runtime.NewProviderConfig()))
	require.ErrorIs(t, err, runtime.ErrNotModule)
	_, err = rt.Load(ctx, "small", fixture(t, "good.wasm"), testkit.Limits(runtime.NewProviderConfig()).WithModuleSizeLimit(100))
	require.ErrorIs(t, err, runtime.ErrModuleTooLarge)
}

type callCase struct {
	name    string
	fixture string
	op      string
	arg     string
	cfg     configFunc
	want    error  // nil: the call succeeds
	alt     error  // another acceptable outcome, where timing decides
	text    string // on success, the read's text
	check   func(t *testing.T, logs *logSink)
	// overrun is how long past its deadline the call may return; 0 means
	// defaultOverrun.
	overrun time.Duration
}

// defaultOverrun bounds how late a call may return after its deadline on a
// loaded machine (both cores busy, -race); a host that ignored the deadline
// would blow through it: the guests loop forever.
const defaultOverrun = 10 * time.Second

func withOutputLimit(n int) configFunc {
	return func(_ *testing.T, c runtime.ProviderConfig) runtime.ProviderConfig {
		return c.WithOutputLimit(n)
	}
}

var callCases = []callCase{
	// 1. infinite loops
	{name: "loop/list", fixture: "loop", op: abi.OpList, arg: "evil:loop", want: abi.ErrTimeout},
	{name: "loop/templates", fixture: "loop", op: abi.OpTemplates, arg: "evil:loop", want: abi.ErrTimeout},
	{name: "loop/read", fixture: "loop", op: abi.OpRead, arg: "evil:loop", want: abi.ErrTimeout},
	{name: "loop/complete", fixture: "loop", op: abi.OpComplete, arg: "evil:loop", want: abi.ErrTimeout},
	// 2. memory
	{name: "grow", fixture: "grow", op: abi.OpRead, arg: "evil:grow", text: fmt.Sprint(hostileMemory >> 16)},
	{name: "growfill", fixture: "grow", op: abi.OpRead, arg: "evil:growfill", text: fmt.Sprint(hostileMemory >> 16)},
	{name: "growbig", fixture: "grow", op: abi.OpRead, arg: "evil:growbig", text: "1"},
	{name: "growtrap", fixture: "grow", op: abi.OpRead, arg: "evil:growtrap", want: abi.ErrMemory},
	// 3. recursion: unbounded recursion ends at wazero's stack ceiling
	// (~160 MB of Go heap, 0.2 s idle, up to ~2 s under -race on a loaded
	// machine) or at the deadline, whichever comes first: every function
	// entry is a checkpoint.
	{name: "recurse", fixture: "recurse", op: abi.OpRead, arg: "evil:recurse", want: abi.ErrTrap, alt: abi.ErrTimeout, overrun: 10 * time.Second},
	// 3b. every control-flow shape that never stops is stopped at its
	// deadline (spin.wat), loops or not.
	{name: "spin/exprec", fixture: "spin", op: abi.OpRead, arg: "evil:exprec", want: abi.ErrTimeout},
	{name: "spin/mutual", fixture: "spin", op: abi.OpRead, arg: "evil:mutual", want: abi.ErrTimeout},
	{name: "spin/brtable", fixture: "spin", op: abi.OpRead, arg: "evil:brtable", want: abi.ErrTimeout},
	{name: "spin/loopif", fixture: "spin", op: abi.OpRead, arg: "evil:loopif", want: abi.ErrTimeout},
	{name: "spin/loopelse", fixture: "spin", op: abi.OpRead, arg: "evil:loopelse", want: abi.ErrTimeout},
	{name: "spin/loopparam", fixture: "spin", op: abi.OpRead, arg: "evil:loopparam", want: abi.ErrTimeout},
	{name: "spin/loopbrtable", fixture: "spin", op: abi.OpRead, arg: "evil:loopbrtable", want: abi.ErrTimeout},
	{name: "spin/nested", fixture: "spin", op: abi.OpRead, arg: "evil:nested", want: abi.ErrTimeout},
	// (runtime/internal/wasmbin's TestCheckpointBound shows, without
	// timing, that unwinding is checked at every return point.)
	{name: "spin/unwind", fixture: "spin", op: abi.OpRead, arg: "evil:unwind", want: abi.ErrTimeout},
	{name: "spin/fill", fixture: "spin", op: abi.OpRead, arg: "evil:fill", want: abi.ErrTimeout},
	// 3c. table.grow past the host's table cap fails (-1) instead of
	// allocating host memory: the table keeps its initial size.
	{name: "bigtable", fixture: "spin", op: abi.OpRead, arg: "evil:bigtable", text: "1"},
	// 5. output
	{name: "output/huge", fixture: "output", op: abi.OpRead, arg: "evil:huge", want: abi.ErrOutputTooLarge},
	{name: "output/over", fixture: "output", op: abi.OpRead, arg: "evil:over", want: abi.ErrOutputTooLarge},
	{name: "output/overstop", fixture: "output", op: abi.OpRead, arg: "evil:overstop", want: abi.ErrOutputTooLarge},
	{name: "output/overerr", fixture: "output", op: abi.OpRead, arg: "evil:overerr", want: abi.ErrOutputTooLarge},
	{name: "output/many", fixture: "output", op: abi.OpRead, arg: "evil:many", cfg: withOutputLimit(1 << 20), text: "ok"},
	{name: "output/many-capped", fixture: "output", op: abi.OpRead, arg: "evil:many", cfg: withOutputLimit(hostileOutput), want: abi.ErrOutputTooLarge},
	{name: "output/split", fixture: "output", op: abi.OpRead, arg: "evil:split", text: "ok"},
	{name: "output/pad-at-cap", fixture: "output", op: abi.OpRead, arg: fmt.Sprintf("evil:pad/%d", hostileOutput), text: "ok"},
	{name: "output/pad-over-cap", fixture: "output", op: abi.OpRead, arg: fmt.Sprintf("evil:pad/%d", hostileOutput+1), want: abi.ErrOutputTooLarge},
	// 6. traps
	{name: "trap/unreachable", fixture: "traps", op: abi.OpRead, arg: "evil:unreachable", want: abi.ErrTrap},
	{name: "trap/div0", fixture: "traps", op: abi.OpRead, arg: "evil:div0", want: abi.ErrTrap},
	{name: "trap/divover", fixture: "traps", op: abi.OpRead, arg: "evil:divover", want: abi.ErrTrap},
	{name: "trap/trunc", fixture: "traps", op: abi.OpRead, arg: "evil:trunc", want: abi.ErrTrap},
	{name: "trap/oobload", fixture: "traps", op: abi.OpRead, arg: "evil:oobload", want: abi.ErrTrap},
	{name: "trap/oobstore", fixture: "traps", op: abi.OpRead, arg: "evil:oobstore", want: abi.ErrTrap},
	{name: "trap/nullcall", fixture: "traps", op: abi.OpRead, arg: "evil:nullcall", want: abi.ErrTrap},
	{name: "trap/sigcall", fixture: "traps", op: abi.OpRead, arg: "evil:sigcall", want: abi.ErrTrap},
	{name: "trap/tablecall", fixture: "traps", op: abi.OpRead, arg: "evil:tablecall", want: abi.ErrTrap},
	// A trap far below a small memory cap is a trap, not out-of-memory.
	{name: "trap/unreachable-1MiB", fixture: "traps", op: abi.OpRead, arg: "evil:unreachable", want: abi.ErrTrap,
		cfg: func(_ *testing.T, c runtime.ProviderConfig) runtime.ProviderConfig { return c.WithMemoryLimit(1 << 20) }},
	{name: "abort", fixture: "env_abort", op: abi.OpRead, arg: "evil:abort", want: abi.ErrTrap},
	// content_write (ABI §6.3): used rightly it is text and a blob; every
	// misuse is a violation, and bodies count toward the output limit.
	{name: "raw/ok", fixture: "raw_content", op: abi.OpRead, arg: "evil:rawok", text: "hi"},
	{name: "raw/badidx", fixture: "raw_content", op: abi.OpRead, arg: "evil:rawbadidx", want: abi.ErrViolation},
	{name: "raw/reuse", fixture: "raw_content", op: abi.OpRead, arg: "evil:rawreuse", want: abi.ErrViolation},
	{name: "raw/unused", fixture: "raw_content", op: abi.OpRead, arg: "evil:rawunused", want: abi.ErrViolation},
	{name: "raw/utf8", fixture: "raw_content", op: abi.OpRead, arg: "evil:rawutf8", want: abi.ErrViolation},
	{name: "raw/both", fixture: "raw_content", op: abi.OpRead, arg: "evil:rawboth", want: abi.ErrViolation},
	{name: "raw/huge", fixture: "raw_content", op: abi.OpRead, arg: "evil:rawhuge", want: abi.ErrOutputTooLarge},
	{name: "raw/list", fixture: "raw_content", op: abi.OpList, arg: "evil:rawlist", want: abi.ErrViolation},
	// proc_exit cannot forge a timeout or a cancellation: every code is a trap.
	{name: "proc_exit/deadline-code", fixture: "proc_exit", op: abi.OpRead, arg: "evil:exitdeadline", want: abi.ErrTrap},
	{name: "proc_exit/cancel-code", fixture: "proc_exit", op: abi.OpRead, arg: "evil:exitcancel", want: abi.ErrTrap},
	{name: "proc_exit/0", fixture: "proc_exit", op: abi.OpRead, arg: "evil:exit0", want: abi.ErrTrap},
	{name: "proc_exit/7", fixture: "proc_exit", op: abi.OpRead, arg: "evil:exit7", want: abi.ErrTrap},
	// 11. URIs the provider does not own
	{name: "foreign/list", fixture: "foreign", op: abi.OpList, arg: "evil:foreign", want: abi.ErrViolation},
	{name: "foreign/list-control", fixture: "foreign", op: abi.OpList, arg: "evil:ctl", want: abi.ErrViolation},
	{name: "foreign/templates", fixture: "foreign", op: abi.OpTemplates, arg: "evil:foreign", want: abi.ErrViolation},
	{name: "foreign/templates-scheme-variable", fixture: "foreign", op: abi.OpTemplates, arg: "evil:tplvar", want: abi.ErrViolation},
	{name: "foreign/templates-syntax", fixture: "foreign", op: abi.OpTemplates, arg: "evil:tplbad", want: abi.ErrViolation},
	{name: "foreign/read", fixture: "foreign", op: abi.OpRead, arg: "evil:passwd", want: abi.ErrViolation},
	{name: "foreign/read-mixed", fixture: "foreign", op: abi.OpRead, arg: "evil:mixed", want: abi.ErrViolation},
	// 13. logs and stdio
	{name: "logspam", fixture: "logspam", op: abi.OpRead, arg: "evil:logspam", text: "ok", check: requireBoundedGuestLog},
	{name: "loglevel", fixture: "logspam", op: abi.OpRead, arg: "evil:loglevel", text: "ok"},
	{name: "stdout", fixture: "wasi_stdout", op: abi.OpRead, arg: "evil:stdout", text: "ok", check: requireBoundedStdio},
	{name: "stdoutbad", fixture: "wasi_stdout", op: abi.OpRead, arg: "evil:stdoutbad", text: "ok"},
	// _initialize wrote output and logs; none of it may leak into a call.
}

func testHostileCalls(t *testing.T) {
	for _, c := range callCases {
		t.Run(c.name, func(t *testing.T) { runCallCase(t, c) })
	}
}

// runCallCase loads the fixture, makes the bad call, checks its outcome and
// then that the provider still serves good calls, on a fresh instance if
// the bad call was a fault.
func runCallCase(t *testing.T, c callCase) {
	cfg := hostileConfig()
	if errors.Is(c.want, abi.ErrTimeout) || errors.Is(c.alt, abi.ErrTimeout) {
		cfg = hostileDeadlines(cfg) // a test about the deadline
	}
	if c.cfg != nil {
		cfg = c.cfg(t, cfg)
	}
	logs := &logSink{}
	rt := newHostileRuntime(t, logs)
	p, err := loadHostile(t, rt, c.fixture+".wasm", cfg)
	require.NoError(t, err)
	before := p.Stats()

	start := time.Now()
	text, err := callOp(t.Context(), p, c.op, c.arg)
	overrun := c.overrun
	if overrun == 0 {
		overrun = defaultOverrun
	}
	require.Less(t, time.Since(start), cfg.Timeout()+overrun, "the call overran its deadline")
	fault := false
	switch {
	case c.want == nil:
		require.NoError(t, err)
		if c.op == abi.OpRead {
			require.Equal(t, c.text, text)
		}
	case c.alt != nil && errors.Is(err, c.alt):
		fault = isFaultKind(c.alt)
	default:
		require.ErrorIs(t, err, c.want)
		fault = isFaultKind(c.want)
	}
	if err != nil {
		requireCleanMessage(t, err.Error())
	}
	after := p.Stats()
	require.Equal(t, before.Faults+b2u(fault), after.Faults, "faults")
	require.LessOrEqual(t, after.MemoryHigh, uint32(hostileMemory), "memory high water over the cap")

	requireGoodCalls(t, p)
	final := p.Stats()
	require.Equal(t, before.Instantiated+b2u(fault), final.Instantiated, "a fault must cost exactly one instance")
	require.Equal(t, 1, final.Live)
	require.False(t, final.Quarantined)
	requireCleanLogs(t, logs)
	if c.check != nil {
		c.check(t, logs)
	}
}

// isFaultKind reports whether an abi kind discards the instance.
func isFaultKind(err error) bool {
	for _, k := range []error{abi.ErrTimeout, abi.ErrMemory, abi.ErrTrap, abi.ErrViolation, abi.ErrOutputTooLarge} {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// requireBoundedGuestLog: 10 000 messages of 64 KiB became at most 64
// messages of at most 4 KiB (plus sanitizing overhead) and one drop notice.
func requireBoundedGuestLog(t *testing.T, logs *logSink) {
	guest := logs.withPrefix("guest: ")
	require.NotEmpty(t, guest)
	require.LessOrEqual(t, len(guest), 64)
	for _, r := range guest {
		require.LessOrEqual(t, len(r.msg), 3*(4<<10)+64)
	}
	require.Len(t, logs.withPrefix("guest log messages dropped"), 1)
}

// requireBoundedStdio: 1.25 GiB written to stdout and stderr became one
// bounded record.
func requireBoundedStdio(t *testing.T, logs *logSink) {
	stdio := logs.withPrefix("guest stdout/stderr")
	require.Len(t, stdio, 1)
	require.LessOrEqual(t, len(stdio[0].msg), 3*(16<<10)+64)
	require.Contains(t, stdio[0].msg, marker)
}

// testHostileOOB passes every bad (pointer, length) of oob.wat to every host
// import; each must fault the call as an ABI violation.
func testHostileOOB(t *testing.T) {
	imports := []string{"input_read", "output_write", "log", "config_get-key", "config_get-value"}
	for i, imp := range imports {
		for c := range 7 {
			t.Run(fmt.Sprintf("%s/%d", imp, c), func(t *testing.T) {
				runCallCase(t, callCase{fixture: "oob", op: abi.OpRead, arg: fmt.Sprintf("evil:oob/%d%d", i, c), want: abi.ErrViolation})
			})
		}
	}
}

// payloadCases are the triggers of payload.wat and the kind each must map to.
var payloadCases = []struct {
	trigger string
	want    error
}{
	{"utf8", abi.ErrViolation}, {"surrogate", abi.ErrViolation}, {"ctltext", abi.ErrViolation},
	{"b64pad", abi.ErrViolation}, {"b64", abi.ErrViolation}, {"json", abi.ErrViolation},
	{"bom", abi.ErrViolation}, {"trailing", abi.ErrViolation}, {"dup", abi.ErrViolation},
	{"case", abi.ErrViolation}, {"unknown", abi.ErrViolation}, {"type", abi.ErrViolation},
	{"bigint", abi.ErrViolation}, {"deep", abi.ErrViolation}, {"both", abi.ErrViolation},
	{"neither", abi.ErrViolation}, {"empty", abi.ErrViolation}, {"null", abi.ErrViolation},
	{"noout", abi.ErrViolation}, {"status7", abi.ErrViolation}, {"statusneg", abi.ErrViolation},
	{"errcode", abi.ErrViolation}, {"errjunk", abi.ErrViolation}, {"errnone", abi.ErrViolation},
	{"errbadutf8", abi.ErrViolation},
	{"notfound", abi.ErrNotFound}, {"badparams", abi.ErrInvalidParams}, {"internal", abi.ErrProviderInternal},
}

func testHostilePayloads(t *testing.T) {
	for _, c := range payloadCases {
		t.Run(c.trigger, func(t *testing.T) {
			runCallCase(t, callCase{fixture: "payload", op: abi.OpRead, arg: "evil:" + c.trigger, want: c.want})
		})
	}
}

// TestHostileFixturesCommitted checks every .wat has its .wasm beside it;
// that, when wat2wasm is installed, the committed .wasm is what the .wat
// compiles to now; and that every copy of the good.wat skeleton's helpers is
// identical to the original.
func TestHostileFixturesCommitted(t *testing.T) {
	wats, err := filepath.Glob(filepath.Join(hostileDir, "*.wat"))
	require.NoError(t, err)
	require.NotEmpty(t, wats)
	helpers := skeletonHelpers(t, string(fixture(t, "good.wat")))
	require.NotEmpty(t, helpers)
	for _, wat := range wats {
		b, err := os.ReadFile(wat)
		require.NoError(t, err)
		require.Equal(t, helpers, skeletonHelpers(t, string(b)), "%s: skeleton helpers differ from good.wat", wat)
	}
	wat2wasm, lookErr := exec.LookPath("wat2wasm")
	if lookErr != nil {
		t.Log("wat2wasm not found (apt-get install -y wabt): checking only that each .wasm exists")
	}
	for _, wat := range wats {
		committed, err := os.ReadFile(strings.TrimSuffix(wat, ".wat") + ".wasm")
		require.NoError(t, err, "%s has no .wasm: run testdata/hostile/regen.sh", wat)
		require.True(t, bytes.HasPrefix(committed, []byte("\x00asm\x01\x00\x00\x00")), "%s: not a core module", wat)
		if lookErr != nil {
			continue
		}
		out := filepath.Join(t.TempDir(), "out.wasm")
		b, err := exec.Command(wat2wasm, wat, "-o", out).CombinedOutput()
		require.NoError(t, err, "%s", b)
		fresh, err := os.ReadFile(out)
		require.NoError(t, err)
		require.True(t, bytes.Equal(committed, fresh), "%s is stale: run testdata/hostile/regen.sh", wat)
	}
}

// skeletonHelpers returns the helper block a fixture copied from good.wat.
func skeletonHelpers(t *testing.T, wat string) string {
	t.Helper()
	_, rest, ok := strings.Cut(wat, ";; ---- skeleton helpers")
	require.True(t, ok, "no skeleton helpers block")
	block, _, ok := strings.Cut(rest, ";; ---- ")
	require.True(t, ok, "skeleton helpers block not closed")
	return block
}

// TestHostile_UndeclaredExportNeverCalled: exports beyond describe's
// operations are allowed (Go's SDK cannot export conditionally) but are
// never called; the declared operations work.
func TestHostile_UndeclaredExportNeverCalled(t *testing.T) {
	rt := newHostileRuntime(t, &logSink{})
	p, err := loadHostile(t, rt, "op_undeclared.wasm", testkit.Limits(runtime.NewProviderConfig()))
	require.NoError(t, err)
	require.True(t, p.Supports(abi.OpList))
	require.False(t, p.Supports(abi.OpRead))
	_, err = p.Read(t.Context(), "evil:good")
	require.ErrorIs(t, err, abi.ErrUnsupported)
	_, err = p.List(t.Context(), "")
	require.NoError(t, err)
	require.Equal(t, uint64(2), p.Stats().Calls, "describe and list reached the guest, read did not")
}
