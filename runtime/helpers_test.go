package runtime

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
)

// minimalWasm is testdata/wat/minimal.wasm: a provider with one read op.
func minimalWasm(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testguest.Root(), "testdata", "wat", "minimal.wasm"))
	require.NoError(t, err)
	return b
}

func newTestRuntime(t testing.TB, cfg Config) *Runtime {
	t.Helper()
	if cfg.logger == nil {
		cfg = cfg.WithLogger(slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	rt, err := New(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	return rt
}

func load(t testing.TB, rt *Runtime, wasm []byte, cfg ProviderConfig) *Provider {
	t.Helper()
	p, err := rt.Load(context.Background(), "test", wasm, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return p
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(b []byte) (int, error) { w.t.Log(string(b)); return len(b), nil }
