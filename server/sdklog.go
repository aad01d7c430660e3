package server

import (
	"context"
	"log/slog"
	"strings"
)

// demoted is the handler go-sdk logs through: its Info records (session
// connected, run start, ...) are routine for a server and become Debug, so
// an operator's info log shows mcp-wasm's own events. So do the Error and
// Warn records go-sdk writes for a client's protocol mistake (a call
// before initialize, a second initialize, a removed method, ...): any
// client can make them at will, so at Error they would let it fill the
// log, and they are the client's problem, answered to the client.
type demoted struct{ h slog.Handler }

// clientMistakes are go-sdk's messages for client protocol mistakes
// (go-sdk v1.8.0: mcp/server.go, mcp/streamable.go), matched as prefixes.
var clientMistakes = []string{
	"method invalid during initialization",
	"initialized before initialize",
	"duplicate initialized notification",
	"duplicate initialize request",
	"method removed in the new protocol",
	"rejecting request with protocol version",
}

func demote(l slog.Level, msg string) slog.Level {
	if l == slog.LevelInfo {
		return slog.LevelDebug
	}
	if l > slog.LevelInfo {
		for _, m := range clientMistakes {
			if strings.HasPrefix(msg, m) {
				return slog.LevelDebug
			}
		}
	}
	return l
}

// Enabled cannot know the message yet: Handle drops a demoted record the
// inner handler does not want.
func (d demoted) Enabled(ctx context.Context, l slog.Level) bool {
	return d.h.Enabled(ctx, demote(l, ""))
}

func (d demoted) Handle(ctx context.Context, r slog.Record) error {
	r.Level = demote(r.Level, r.Message)
	if !d.h.Enabled(ctx, r.Level) {
		return nil
	}
	return d.h.Handle(ctx, r)
}

func (d demoted) WithAttrs(as []slog.Attr) slog.Handler { return demoted{d.h.WithAttrs(as)} }
func (d demoted) WithGroup(name string) slog.Handler    { return demoted{d.h.WithGroup(name)} }
