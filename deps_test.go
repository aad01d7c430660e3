package mcpwasm_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSigstoreOnlyInTheVerifier: no package of mcp-wasm itself reaches
// Sigstore's modules, even transitively (the parser-based import policy
// cannot see that): sigstore-go links an online Rekor client,
// OpenTelemetry, go-openapi and gRPC, whose initializers allocate
// megabytes at start that the collector marks on every cycle. Only the
// verifier program links them (cmd/mcp-wasm-verify, package
// internal/sigpolicy/offline); see RATIONALE.md.
func TestSigstoreOnlyInTheVerifier(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	pkgs := []string{"./cmd/mcp-wasm", "./config", "./served", "./internal/modsource", "./internal/sigpolicy"}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", pkgs[0], pkgs[1], pkgs[2], pkgs[3], pkgs[4]).CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, dep := range strings.Fields(string(out)) {
		for _, heavy := range []string{"github.com/sigstore/", "go.opentelemetry.io/", "github.com/go-openapi/", "google.golang.org/grpc"} {
			require.False(t, strings.HasPrefix(dep, heavy), "%s reach %s: only cmd/mcp-wasm-verify may link Sigstore's verification", strings.Join(pkgs, ", "), dep)
		}
	}
	verifier, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./cmd/mcp-wasm-verify").CombinedOutput()
	require.NoError(t, err, "%s", verifier)
	require.Contains(t, string(verifier), "github.com/sigstore/sigstore-go/pkg/verify", "the verifier links sigstore-go's verification")
}
