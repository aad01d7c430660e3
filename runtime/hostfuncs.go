package runtime

import (
	"context"
	"fmt"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/egress"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/fault"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// Bounds on what a guest can make the host hold during one call.
const (
	maxLogMessage  = 4 << 10
	maxLogMessages = 64
	maxStdio       = 16 << 10
	maxConfigKey   = 128
)

// callState is the per-call state host imports reach through the call's ctx.
// One instance serves one call at a time, so it needs no lock.
type callState struct {
	input     []byte
	output    []byte
	outLimit  int
	overLimit bool
	config    map[string]string
	logs      []guestLog
	dropped   int
	stdio     []byte
	raw       [][]byte // content_write bodies (rawcontent.go)
	rawBytes  int
	fetched   []byte // the last http_fetch response, for http_read
	fetches   int
	// initializing marks the state of _initialize and start functions, where
	// host imports trap: they exist only inside an operation call.
	initializing bool
}

type guestLog struct {
	level uint32
	msg   []byte
}

type stateKey struct{}

func withState(ctx context.Context, st *callState) context.Context {
	return context.WithValue(ctx, stateKey{}, st)
}

// hostFault is what a host import panics with (internal/fault).
type hostFault = fault.Fault

var violation = fault.Violation

// enter fetches the call state and stops the guest if the call is done or
// past its deadline.
func enter(ctx context.Context, name string) *callState {
	fault.StopIfDone(ctx)
	st, _ := ctx.Value(stateKey{}).(*callState)
	if st == nil || st.initializing {
		panic(violation("%s called outside an operation call (during _initialize or a start function)", name))
	}
	return st
}

// view returns guest memory [ptr, ptr+n) or traps the guest.
func view(mod api.Module, name string, ptr, n uint32) []byte {
	b, ok := mod.Memory().Read(ptr, n)
	if !ok {
		panic(violation("%s: range [%#x, +%d) is outside guest memory (%d bytes)", name, ptr, n, mod.Memory().Size()))
	}
	return b
}

func inputRead(ctx context.Context, mod api.Module, stack []uint64) {
	st := enter(ctx, abi.ImportInputRead)
	ptr, n := api.DecodeU32(stack[0]), api.DecodeU32(stack[1])
	dst := view(mod, abi.ImportInputRead, ptr, n)
	stack[0] = uint64(copy(dst, st.input))
}

func outputWrite(ctx context.Context, mod api.Module, stack []uint64) {
	st := enter(ctx, abi.ImportOutputWrite)
	src := view(mod, abi.ImportOutputWrite, api.DecodeU32(stack[0]), api.DecodeU32(stack[1]))
	if st.overLimit || len(st.output)+st.rawBytes+len(src) > st.outLimit {
		st.overLimit = true
		stack[0] = api.EncodeI32(abi.ResultOverLimit)
		return
	}
	st.output = append(st.output, src...)
	stack[0] = 0
}

func logImport(ctx context.Context, mod api.Module, stack []uint64) {
	st := enter(ctx, abi.ImportLog)
	level := min(api.DecodeU32(stack[0]), abi.LogError)
	msg := view(mod, abi.ImportLog, api.DecodeU32(stack[1]), api.DecodeU32(stack[2]))
	if len(st.logs) >= maxLogMessages {
		st.dropped++
		return
	}
	st.logs = append(st.logs, guestLog{level: level, msg: append([]byte(nil), msg[:min(len(msg), maxLogMessage)]...)})
}

func configGet(ctx context.Context, mod api.Module, stack []uint64) {
	st := enter(ctx, abi.ImportConfigGet)
	kptr, klen := api.DecodeU32(stack[0]), api.DecodeU32(stack[1])
	vptr, vcap := api.DecodeU32(stack[2]), api.DecodeU32(stack[3])
	key := view(mod, abi.ImportConfigGet, kptr, klen)
	dst := view(mod, abi.ImportConfigGet, vptr, vcap)
	if klen > maxConfigKey { // no key is longer; never copy a huge guest range into a string
		stack[0] = api.EncodeI32(abi.ResultDenied)
		return
	}
	v, ok := st.config[string(key)]
	if !ok {
		stack[0] = api.EncodeI32(abi.ResultDenied)
		return
	}
	if len(v) <= len(dst) {
		copy(dst, v)
	}
	stack[0] = uint64(len(v))
}

// httpFetch is mcpw_v1.http_fetch(req_ptr, req_len) -> n: it performs the
// request and holds the FetchResponse (n bytes of JSON) for http_read. The
// host holds at most one response per call, bounded by the grant's caps.
// When the call's deadline passes during the request, the call traps.
func httpFetch(e *egress.Egress) api.GoModuleFunc {
	return func(ctx context.Context, mod api.Module, stack []uint64) {
		st := enter(ctx, abi.ImportHTTPFetch)
		src := view(mod, abi.ImportHTTPFetch, api.DecodeU32(stack[0]), api.DecodeU32(stack[1]))
		st.fetched = nil
		st.fetches++
		resp := e.Fetch(ctx, src, st.fetches)
		if ctx.Err() != nil {
			panic(&hostFault{Kind: abi.ErrTimeout, Msg: abi.ImportHTTPFetch + ": call deadline passed during the request"})
		}
		st.fetched = resp
		stack[0] = uint64(len(st.fetched))
	}
}

// httpRead is mcpw_v1.http_read(ptr, cap) -> n: it copies the start of the
// held response, like input_read.
func httpRead(ctx context.Context, mod api.Module, stack []uint64) {
	st := enter(ctx, abi.ImportHTTPRead)
	dst := view(mod, abi.ImportHTTPRead, api.DecodeU32(stack[0]), api.DecodeU32(stack[1]))
	stack[0] = uint64(copy(dst, st.fetched))
}

// envAbort is AssemblyScript's abort(msg, file, line, col): a guest trap.
func envAbort(_ context.Context, _ api.Module, stack []uint64) {
	panic(&hostFault{Kind: abi.ErrTrap, Msg: fmt.Sprintf("guest called abort at line %d column %d", api.DecodeU32(stack[2]), api.DecodeU32(stack[3]))})
}

// instantiateHostModules links mcpw_v1 and env.abort into r; http_fetch
// and http_read only when eg is not nil (the operator granted http).
func instantiateHostModules(ctx context.Context, r wazero.Runtime, eg *egress.Egress) error {
	i32 := api.ValueTypeI32
	b := r.NewHostModuleBuilder(abi.ImportModule)
	def := func(name string, f api.GoModuleFunc, params, results int) {
		p := make([]api.ValueType, params)
		res := make([]api.ValueType, results)
		for i := range p {
			p[i] = i32
		}
		for i := range res {
			res[i] = i32
		}
		b.NewFunctionBuilder().WithGoModuleFunction(f, p, res).Export(name)
	}
	def(abi.ImportInputRead, inputRead, 2, 1)
	def(abi.ImportOutputWrite, outputWrite, 2, 1)
	def(abi.ImportLog, logImport, 3, 0)
	def(abi.ImportConfigGet, configGet, 4, 1)
	def(abi.ImportContentWrite, contentWrite, 2, 1)
	hctx := ctx
	if eg != nil {
		def(abi.ImportHTTPFetch, httpFetch(eg), 2, 1)
		def(abi.ImportHTTPRead, httpRead, 2, 1)
		hctx = experimental.WithCloseNotifier(ctx, experimental.CloseNotifyFunc(func(context.Context, uint32) { eg.Close() }))
	}
	if _, err := b.Instantiate(hctx); err != nil {
		return fmt.Errorf("instantiate host module: %w", err)
	}
	if err := instantiatePreempt(ctx, r); err != nil {
		return fmt.Errorf("instantiate preemption module: %w", err)
	}
	_, err := r.NewHostModuleBuilder("env").NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(envAbort), []api.ValueType{i32, i32, i32, i32}, nil).
		Export("abort").Instantiate(ctx)
	if err != nil {
		return fmt.Errorf("instantiate env module: %w", err)
	}
	return nil
}

// stdioSink receives a guest's WASI stdout and stderr into the current call's
// bounded buffer; output outside a call is dropped.
type stdioSink struct{ st *callState }

func (s *stdioSink) Write(p []byte) (int, error) {
	if s.st != nil {
		room := maxStdio - len(s.st.stdio)
		if room > 0 {
			s.st.stdio = append(s.st.stdio, p[:min(len(p), room)]...)
		}
	}
	return len(p), nil
}
