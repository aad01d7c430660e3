package served

// Signature checks run in this test process: the verifier's engine
// (sigstore-go) is linked here, as it is into mcp-wasm-verify, where the
// product runs it (sigpolicy.Engine).
import _ "github.com/mcp-wasm/mcp-wasm/internal/sigpolicy/offline"
