package server

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDemoted(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(demoted{slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})}).With("component", "go-sdk")
	l.Info("session connected")
	require.Empty(t, buf.String(), "go-sdk info is debug")
	l.Warn("trouble")
	require.Contains(t, buf.String(), "level=WARN msg=trouble component=go-sdk")
	l.Error("method invalid during initialization", "method", "resources/list")
	l.Warn("rejecting request with protocol version \"2026-07-28\": this server is stateful")
	require.NotContains(t, buf.String(), "initialization", "a client's mistake is not the operator's error")
	require.NotContains(t, buf.String(), "rejecting")
	l.Error("jsonrpc2 internal error")
	require.Contains(t, buf.String(), "level=ERROR msg=\"jsonrpc2 internal error\"")
	require.True(t, demoted{slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})}.Enabled(context.Background(), slog.LevelInfo))
}
