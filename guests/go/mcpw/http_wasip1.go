//go:build wasip1

package mcpw

import (
	"encoding/json"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// The outbound HTTP imports. They are linked only for providers granted
// http, and Go links an import only if it is called, so a module that never
// calls Fetch does not need the grant.

//go:wasmimport mcpw_v1 http_fetch
func httpFetch(reqPtr unsafe.Pointer, reqLen uint32) uint32

//go:wasmimport mcpw_v1 http_read
func httpRead(ptr unsafe.Pointer, n uint32) uint32

// platformFetch sends req through http_fetch and copies the held response
// out with http_read.
func platformFetch(req abi.FetchRequest) (*abi.FetchResponse, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("mcpw: encode request: %w", err)
	}
	n := httpFetch(unsafe.Pointer(&b[0]), uint32(len(b)))
	runtime.KeepAlive(b)
	buf := make([]byte, n)
	if n > 0 {
		buf = buf[:httpRead(unsafe.Pointer(&buf[0]), n)]
		runtime.KeepAlive(buf)
	}
	var resp abi.FetchResponse
	if err := json.Unmarshal(buf, &resp); err != nil {
		return nil, fmt.Errorf("mcpw: decode host response: %w", err)
	}
	return &resp, nil
}
