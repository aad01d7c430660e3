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
	require.True(t, demoted{slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})}.Enabled(context.Background(), slog.LevelInfo))
}
