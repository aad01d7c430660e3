package mcpw

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHostFromContext(t *testing.T) {
	h := &MapHost{Values: map[string]string{"k": "v"}}
	ctx := WithHost(context.Background(), h)
	v, ok := Config(ctx, "k")
	require.True(t, ok)
	require.Equal(t, "v", v)
	_, ok = Config(ctx, "missing")
	require.False(t, ok)
	Logf(ctx, LevelWarn, "n=%d", 3)
	Log(ctx, LevelDebug, "plain")
	require.Equal(t, []LogEntry{{LevelWarn, "n=3"}, {LevelDebug, "plain"}}, h.Logs())
}

func TestDefaultHostGrantsNothing(t *testing.T) {
	_, ok := Config(context.Background(), "k")
	require.False(t, ok, "outside wasm with no WithHost, no config is granted")
	Log(context.Background(), LevelError, "discarded") // must not panic
}
