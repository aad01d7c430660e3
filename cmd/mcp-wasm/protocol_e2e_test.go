package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/internal/testlog"
)

// TestE2E_cursorCycle: a real guest whose list cursors cycle (a, b, a, ...;
// server/testdata/cycle.wat) is listed once and skipped with a log line,
// and the provider after it is listed, whether its pages fill client pages
// or cross them.
func TestE2E_cursorCycle(t *testing.T) {
	cycle := filepath.Join(testguest.Root(), "server", "testdata", "cycle.wasm")
	notes := testguest.Go(t, "guests/notes")
	for _, pageSize := range []string{"1", "500"} {
		t.Run("page "+pageSize, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, binary(t), "serve", "--cache-dir", testguest.CompileCache(),
				"--module", cycle, "--module", notes, "--page-size", pageSize)
			stderr := &testlog.Buffer{}
			cmd.Stderr = stderr
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			require.NoError(t, err)
			defer cs.Close()
			seen := map[string]int{}
			for _, r := range listAll(t, cs) {
				seen[r.URI]++
			}
			for _, uri := range []string{"cycle:first", "cycle:a", "cycle:b"} {
				require.Equal(t, 1, seen[uri], uri)
			}
			require.Contains(t, seen, "notes:///uri-space", "the provider after the cycle is listed")
			// The log line may reach stderr after the page reached the client.
			require.Eventually(t, func() bool {
				return strings.Contains(stderr.String(), "(a cycle)") && strings.Contains(stderr.String(), "provider=cycle")
			}, testkit.Wait, 10*time.Millisecond, "the cycle is logged: %s", stderr.String())
		})
	}
}

// TestServe_requestTimeoutFlag: --request-timeout shorter than a provider
// call's deadline is refused before serving, with the fix; the session
// bound per client needs --http like the other transport flags.
func TestServe_requestTimeoutFlag(t *testing.T) {
	code, _, errOut := runCLI(t, "serve", "--timeout", "5s", "--request-timeout", "1s")
	require.NotEqual(t, 0, code)
	require.Contains(t, errOut, "give a request timeout of at least")
	code, _, errOut = runCLI(t, "serve", "--max-sessions-per-client", "3")
	require.NotEqual(t, 0, code)
	require.Contains(t, errOut, "--max-sessions-per-client needs --http ADDR")
}
