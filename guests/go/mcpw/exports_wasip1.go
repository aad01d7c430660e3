//go:build wasip1

//lint:file-ignore U1000 the exports are called by the host through go:wasmexport

package mcpw

import (
	"context"
	"runtime"
	"unsafe"
)

// The mcpw_v1 host imports. Pointers are offsets into this module's memory.

//go:wasmimport mcpw_v1 input_read
func inputRead(ptr unsafe.Pointer, n uint32) uint32

//go:wasmimport mcpw_v1 output_write
func outputWrite(ptr unsafe.Pointer, n uint32) int32

//go:wasmimport mcpw_v1 log
func hostLog(level uint32, ptr unsafe.Pointer, n uint32)

//go:wasmimport mcpw_v1 config_get
func configGet(keyPtr unsafe.Pointer, keyLen uint32, valPtr unsafe.Pointer, valCap uint32) int32

//go:wasmimport mcpw_v1 content_write
func contentWrite(ptr unsafe.Pointer, n uint32) int32

// rawContent hands a read content's bytes to the host as they are and
// returns the index to refer to them by (ABI §6.3), or -1 when the host
// refused them (over the output limit: the call fails anyway).
func rawContent(b []byte) int {
	var p unsafe.Pointer
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	if n := contentWrite(p, uint32(len(b))); n >= 0 {
		return int(n)
	}
	return -1
}

// The ABI exports. Go cannot export conditionally, so every operation is
// exported; Describe().Operations tells the host which ones to call.

//go:wasmexport mcpw_v1_describe
func exportDescribe(inLen uint32) uint32 { return serve(opDescribe, inLen) }

//go:wasmexport mcpw_v1_list
func exportList(inLen uint32) uint32 { return serve(opList, inLen) }

//go:wasmexport mcpw_v1_templates
func exportTemplates(inLen uint32) uint32 { return serve(opTemplates, inLen) }

//go:wasmexport mcpw_v1_read
func exportRead(inLen uint32) uint32 { return serve(opRead, inLen) }

//go:wasmexport mcpw_v1_complete
func exportComplete(inLen uint32) uint32 { return serve(opComplete, inLen) }

//go:wasmexport mcpw_v1_changes
func exportChanges(inLen uint32) uint32 { return serve(opChanges, inLen) }

// keepBuffer is the largest input or output buffer kept for the next call;
// a larger one (a 1 MiB read) is left to the garbage collector.
const keepBuffer = 64 << 10

var (
	guestHandler *handler // made on the first call, after init functions ran
	// inBuf and outBuf are reused across calls: an allocation costs a
	// guest microseconds, and garbage brings the collector sooner.
	inBuf, outBuf []byte
)

// serve moves bytes: input in, dispatch, output out with one output_write.
func serve(op opCode, inLen uint32) uint32 {
	if guestHandler == nil {
		guestHandler = newHandler(current())
	}
	if uint32(cap(inBuf)) < inLen {
		inBuf = make([]byte, inLen)
	}
	in := inBuf[:inLen]
	if inLen > 0 {
		n := inputRead(unsafe.Pointer(&in[0]), inLen)
		in = in[:min(n, inLen)]
	}
	status, out := guestHandler.dispatch(context.Background(), op, opNames[op], in, outBuf[:0])
	if len(out) > 0 {
		// On -2 (over the output cap) the host fails the call; nothing to do.
		outputWrite(unsafe.Pointer(&out[0]), uint32(len(out)))
	}
	runtime.KeepAlive(in)
	runtime.KeepAlive(out)
	if cap(in) > keepBuffer {
		inBuf = nil
	}
	outBuf = out[:0]
	if cap(out) > keepBuffer {
		outBuf = nil
	}
	// Let the runtime's background goroutines (the GC's mark workers) run:
	// in a reactor nothing else schedules them between calls, and without
	// them a collection never finishes and the heap grows to the memory
	// limit after a few dozen large reads.
	runtime.Gosched()
	return status
}

// defaultHost in a wasm guest is the mcpw_v1 imports.
var defaultHost Host = importHost{}

type importHost struct{}

func (importHost) Log(level Level, msg string) {
	if msg == "" {
		return
	}
	b := []byte(msg)
	hostLog(uint32(level), unsafe.Pointer(&b[0]), uint32(len(b)))
	runtime.KeepAlive(b)
}

func (importHost) Config(key string) (string, bool) {
	if key == "" {
		return "", false
	}
	k := []byte(key)
	buf := make([]byte, 256)
	// A value longer than the buffer is not copied; the host returns its
	// length, so the second try fits (the value cannot change mid-call).
	for range 2 {
		n := configGet(unsafe.Pointer(&k[0]), uint32(len(k)), unsafe.Pointer(&buf[0]), uint32(len(buf)))
		runtime.KeepAlive(k)
		runtime.KeepAlive(buf)
		switch {
		case n < 0:
			return "", false
		case int(n) <= len(buf):
			return string(buf[:n]), true
		}
		buf = make([]byte, n)
	}
	return "", false
}
