package runtime_test

import (
	"os"
	"testing"

	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// TestMain lets the runtime start this test binary as its compile worker.
func TestMain(m *testing.M) {
	runtime.CompileWorkerMain()
	os.Exit(m.Run())
}
