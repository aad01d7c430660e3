// Package wasiguard is the host's own wasi_snapshot_preview1: each function
// wraps wazero's, stops the guest once its call is done, and bounds the work
// one call may do. It links only the functions the host names; it grants
// nothing (files, clocks and randomness come from the module's config).
package wasiguard

import (
	"context"
	"encoding/binary"
	"fmt"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/fault"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// The WASI guard. wazero's wasi_snapshot_preview1 functions do not look at
// the call's context, and several do work in proportion to arguments the
// guest picks (60 MiB of random bytes, 8M iovecs, 512K poll subscriptions,
// a whole directory, a 60 MiB path). The instrumentation charges an import
// call one budget unit, so a guest looping on such calls never reached a
// preemption check that mattered: it ran past every deadline.
//
// The host therefore links its own module named wasi_snapshot_preview1.
// Each of its functions wraps wazero's function of the same name, called
// with the guest's own module (which carries its file descriptors, clocks
// and random source): it stops the guest with a fault (runtime/internal/fault) once the call's
// context is done or its deadline has passed, on entry and between chunks
// of bulk work, and it bounds what one call may do. The bounds use what
// WASI lets a host do: short reads and writes (fd_read, fd_pread, fd_write,
// fd_pwrite report how much they moved), an errno for counts past an
// implementation limit (poll_oneoff: EINVAL; paths: ENAMETOOLONG), and
// chunking where the result must be whole (random_get, fd_readdir). The
// table of per-call bounds is in abi/ABI.md §9.3.

// Per-call bounds of the WASI functions.
const (
	// maxIOVecs is the most iovecs one fd_read, fd_pread, fd_write or
	// fd_pwrite call looks at (Linux's IOV_MAX); the rest is a short
	// transfer.
	maxIOVecs = 1024
	// maxIOBytes is the most bytes one of those calls moves.
	maxIOBytes = 1 << 20
	// randomChunk is how much random_get fills between two deadline checks.
	randomChunk = 64 << 10
	// readdirChunk is the buffer of one inner fd_readdir call, at most
	// readdirChunk/24+2 directory entries, between two deadline checks.
	readdirChunk = 64 << 10
	// maxSubscriptions is the most subscriptions one poll_oneoff accepts.
	maxSubscriptions = 4096
	// maxPath is the longest path a path_* function accepts (PATH_MAX).
	maxPath = 4096
)

// WASI errno values (wasi_snapshot_preview1 errno).
const (
	errnoFault       = 21
	errnoInval       = 28
	errnoIO          = 29
	errnoNameTooLong = 37
)

// direntHeader is the size of a WASI dirent before its name.
const direntHeader = 24

var le = binary.LittleEndian

// Module is the name of the module the guard links.
const Module = "wasi_snapshot_preview1"

// Instantiate links the guarded wasi_snapshot_preview1 into r: only the
// functions named (the host's allowlist), each wrapping wazero's.
func Instantiate(ctx context.Context, r wazero.Runtime, names []string) error {
	inner := r.NewHostModuleBuilder("mcp-wasm:wasi-inner")
	wasi_snapshot_preview1.NewFunctionExporter().ExportFunctions(inner)
	compiled, err := inner.Compile(ctx) // compiled for its definitions only; never instantiated
	if err != nil {
		return fmt.Errorf("compile WASI: %w", err)
	}
	defer compiled.Close(ctx)
	defs := compiled.ExportedFunctions()
	b := r.NewHostModuleBuilder(Module)
	for _, name := range names {
		def, ok := defs[name]
		if !ok {
			return fmt.Errorf("wazero has no WASI function %s", name)
		}
		fn, ok := def.GoFunction().(api.GoModuleFunction)
		if !ok {
			return fmt.Errorf("WASI function %s is not a Go module function", name)
		}
		b.NewFunctionBuilder().
			WithGoModuleFunction(guardWASI(name, def.ParamNames(), fn), def.ParamTypes(), def.ResultTypes()).
			WithParameterNames(def.ParamNames()...).
			WithResultNames(def.ResultNames()...).
			Export(name)
	}
	_, err = b.Instantiate(ctx)
	return err
}

// guardWASI returns the guarded form of the WASI function name.
func guardWASI(name string, params []string, inner api.GoModuleFunction) api.GoModuleFunction {
	switch name {
	case "fd_read", "fd_pread", "fd_write", "fd_pwrite":
		return guardIOVecs(inner)
	case "random_get":
		return guardRandom(inner)
	case "fd_readdir":
		return guardReaddir(inner)
	case "poll_oneoff":
		return guardPoll(inner)
	}
	if strings.HasPrefix(name, "path_") {
		return guardPaths(params, inner)
	}
	return api.GoModuleFunc(func(ctx context.Context, mod api.Module, stack []uint64) {
		fault.StopIfDone(ctx)
		inner.Call(ctx, mod, stack)
	})
}

// guardIOVecs bounds a scatter/gather call, (fd, iovs, iovs_len, ...), to
// maxIOVecs iovecs and maxIOBytes bytes: a short transfer, which every
// caller must handle. To cut an iovec the host rewrites its length in guest
// memory for the inner call and restores it after; the guest is suspended
// and its memory is not shared, so nothing else sees the change.
func guardIOVecs(inner api.GoModuleFunction) api.GoModuleFunction {
	return api.GoModuleFunc(func(ctx context.Context, mod api.Module, stack []uint64) {
		fault.StopIfDone(ctx)
		iovs, n := api.DecodeU32(stack[1]), min(api.DecodeU32(stack[2]), maxIOVecs)
		arr, ok := mod.Memory().Read(iovs, n*8)
		if !ok {
			stack[0] = errnoFault
			return
		}
		var total uint64
		cut, orig, patched := -1, uint32(0), uint32(0)
		for i := uint32(0); i < n; i++ {
			l := le.Uint32(arr[i*8+4:])
			if total+uint64(l) > maxIOBytes {
				cut, orig, patched = int(i)*8+4, l, uint32(maxIOBytes-total)
				le.PutUint32(arr[cut:], patched)
				n = i + 1
				break
			}
			total += uint64(l)
		}
		stack[2] = uint64(n)
		defer func() {
			// Restore the cut length, unless a read just overwrote it.
			if cut >= 0 && le.Uint32(arr[cut:]) == patched {
				le.PutUint32(arr[cut:], orig)
			}
		}()
		inner.Call(ctx, mod, stack)
	})
}

// guardRandom fills random_get's buffer randomChunk bytes at a time,
// checking the deadline between chunks: the spec has no short fill.
func guardRandom(inner api.GoModuleFunction) api.GoModuleFunction {
	return api.GoModuleFunc(func(ctx context.Context, mod api.Module, stack []uint64) {
		fault.StopIfDone(ctx)
		buf, n := api.DecodeU32(stack[0]), api.DecodeU32(stack[1])
		if n <= randomChunk {
			inner.Call(ctx, mod, stack)
			return
		}
		if _, ok := mod.Memory().Read(buf, n); !ok {
			stack[0] = errnoFault
			return
		}
		sub := make([]uint64, 2)
		for off := uint32(0); off < n; off += randomChunk {
			if off > 0 {
				fault.StopIfDone(ctx)
			}
			sub[0], sub[1] = uint64(buf+off), uint64(min(randomChunk, n-off))
			inner.Call(ctx, mod, sub)
			if sub[0] != 0 {
				stack[0] = sub[0]
				return
			}
		}
		stack[0] = 0
	})
}

// guardPoll refuses more than maxSubscriptions subscriptions with EINVAL,
// as poll(2) refuses more descriptors than its limit.
func guardPoll(inner api.GoModuleFunction) api.GoModuleFunction {
	return api.GoModuleFunc(func(ctx context.Context, mod api.Module, stack []uint64) {
		fault.StopIfDone(ctx)
		if api.DecodeU32(stack[2]) > maxSubscriptions {
			stack[0] = errnoInval
			return
		}
		inner.Call(ctx, mod, stack)
	})
}

// guardPaths refuses a path longer than maxPath with ENAMETOOLONG, before
// wazero copies it into a string and the filesystem resolves it component
// by component. The path lengths are the parameters named *path_len.
func guardPaths(params []string, inner api.GoModuleFunction) api.GoModuleFunction {
	var lens []int
	for i, p := range params {
		if strings.HasSuffix(p, "path_len") {
			lens = append(lens, i)
		}
	}
	return api.GoModuleFunc(func(ctx context.Context, mod api.Module, stack []uint64) {
		fault.StopIfDone(ctx)
		for _, i := range lens {
			if api.DecodeU32(stack[i]) > maxPath {
				stack[0] = errnoNameTooLong
				return
			}
		}
		inner.Call(ctx, mod, stack)
	})
}
