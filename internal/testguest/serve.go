package testguest

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// Serve starts the real mcp-wasm binary (Binary) as `mcp-wasm serve ARGS`,
// with the tests' shared compilation cache, errors-only logs and
// testkit's patient limits (ARGS may set their own after them), and
// connects the official go-sdk client over stdio, speaking revision. The
// session and the process end with the test, or after timeout.
func Serve(tb testing.TB, timeout time.Duration, revision string, args ...string) *mcp.ClientSession {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	tb.Cleanup(cancel)
	argv := append(append([]string{"serve"}, testkit.Flags()...), args...)
	argv = append(argv, "--cache-dir", filepath.Join(Root(), "build", "testguest", "serve-cache"), "--log-level", "error")
	cmd := exec.CommandContext(ctx, Binary(tb), argv...)
	client := mcp.NewClient(&mcp.Implementation{Name: "testguest", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	if err != nil {
		tb.Fatalf("serve %v: %v", args, err)
	}
	tb.Cleanup(func() { _ = cs.Close() })
	return cs
}

// Outcome is an MCP call's result or JSON-RPC error, comparable across
// servers once encoded.
type Outcome struct {
	Result any    `json:",omitempty"`
	Code   int64  `json:",omitempty"`
	Error  string `json:",omitempty"`
}

// Record makes the Outcome of a call's result and error.
func Record[T any](r T, err error) Outcome {
	if err != nil {
		var werr *jsonrpc.Error
		if errors.As(err, &werr) {
			return Outcome{Code: werr.Code, Error: werr.Message}
		}
		return Outcome{Error: err.Error()}
	}
	return Outcome{Result: r}
}
