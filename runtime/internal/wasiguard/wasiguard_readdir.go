package wasiguard

import (
	"context"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/fault"

	"github.com/tetratelabs/wazero/api"
)

// guardReaddir fills fd_readdir's buffer (fd, buf, buf_len, cookie,
// result.bufused) readdirChunk bytes at a time, checking the deadline
// between chunks. The result is the one a single call would give: the
// caller takes bufused < buf_len for the end of the directory, so a buffer
// is filled whole (its last entry possibly cut) unless the directory ends.
// A full chunk resumes after its last whole entry, from that entry's
// d_next cookie, overwriting the cut one.
func guardReaddir(inner api.GoModuleFunction) api.GoModuleFunction {
	return api.GoModuleFunc(func(ctx context.Context, mod api.Module, stack []uint64) {
		fault.StopIfDone(ctx)
		buf, bufLen, usedPtr := api.DecodeU32(stack[1]), api.DecodeU32(stack[2]), api.DecodeU32(stack[4])
		if bufLen <= readdirChunk {
			inner.Call(ctx, mod, stack)
			return
		}
		mem := mod.Memory()
		if _, ok := mem.Read(buf, bufLen); !ok {
			stack[0] = errnoFault
			return
		}
		sub := make([]uint64, 5)
		cookie, off := stack[3], uint32(0)
		for {
			// The last chunk takes what is left, so that no chunk leaves
			// less room than a dirent header.
			n := bufLen - off
			if n > readdirChunk+direntHeader {
				n = readdirChunk
			}
			sub[0], sub[1], sub[2], sub[3], sub[4] = stack[0], uint64(buf+off), uint64(n), cookie, stack[4]
			inner.Call(ctx, mod, sub)
			if sub[0] != 0 {
				stack[0] = sub[0]
				return
			}
			used, _ := mem.ReadUint32Le(usedPtr)
			if used < n || off+n == bufLen {
				off += used // the end of the directory, or the buffer is full
				break
			}
			whole, next := wholeDirents(mem, buf+off, n)
			if whole == 0 { // an entry longer than a chunk: no name is
				stack[0] = errnoIO
				return
			}
			off, cookie = off+whole, next
			fault.StopIfDone(ctx)
		}
		if !mem.WriteUint32Le(usedPtr, off) {
			stack[0] = errnoFault
			return
		}
		stack[0] = 0
	})
}

// wholeDirents returns the length of the whole entries at the start of
// the n bytes at p, and the d_next cookie of the last of them.
func wholeDirents(mem api.Memory, p, n uint32) (whole uint32, next uint64) {
	b, _ := mem.Read(p, n)
	for pos := uint32(0); n-pos >= direntHeader; {
		size := uint64(direntHeader) + uint64(le.Uint32(b[pos+16:]))
		if uint64(pos)+size > uint64(n) {
			break
		}
		next = le.Uint64(b[pos:])
		pos += uint32(size)
		whole = pos
	}
	return whole, next
}
