package mcpw

import (
	"context"
	"fmt"
	"sync"
)

// Level is the severity of a log message.
type Level uint32

// Log levels, as the host's log import numbers them.
const (
	LevelDebug Level = 0
	LevelInfo  Level = 1
	LevelWarn  Level = 2
	LevelError Level = 3
)

// Host is the set of host services a provider can call. In a wasm guest it
// is the mcpw_v1 imports; natively (tests, benchmarks) it is whatever
// WithHost put in the context, or a host that discards logs and grants no
// config.
type Host interface {
	// Log records a message; the host truncates it at 4 KiB and keeps at
	// most 64 messages per call.
	Log(level Level, msg string)
	// Config returns an operator-granted config value.
	Config(key string) (value string, ok bool)
}

type hostKey struct{}

// WithHost returns a context whose Log, Logf and Config go to h. Use it to
// run a provider natively; inside a wasm guest the SDK passes the real host.
func WithHost(ctx context.Context, h Host) context.Context {
	return context.WithValue(ctx, hostKey{}, h)
}

func hostFrom(ctx context.Context) Host {
	if h, ok := ctx.Value(hostKey{}).(Host); ok {
		return h
	}
	return defaultHost
}

// Log sends msg to the host log at level.
func Log(ctx context.Context, level Level, msg string) { hostFrom(ctx).Log(level, msg) }

// Logf formats and sends a message to the host log at level.
func Logf(ctx context.Context, level Level, format string, args ...any) {
	hostFrom(ctx).Log(level, fmt.Sprintf(format, args...))
}

// Config returns the value of an operator-granted config key, and false if
// the key was not granted. Declare every key you read in
// Describe().Requests.Config so the operator knows to grant it.
func Config(ctx context.Context, key string) (string, bool) { return hostFrom(ctx).Config(key) }

// LogEntry is one message recorded by MapHost.
type LogEntry struct {
	Level   Level
	Message string
}

// MapHost is a Host for native runs: Config reads Values, Log records.
// It is safe for concurrent use; do not change Values after first use.
type MapHost struct {
	Values map[string]string

	mu   sync.Mutex
	logs []LogEntry
}

// Log records the message.
func (h *MapHost) Log(level Level, msg string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.logs = append(h.logs, LogEntry{Level: level, Message: msg})
}

// Config looks the key up in Values.
func (h *MapHost) Config(key string) (string, bool) {
	v, ok := h.Values[key]
	return v, ok
}

// Logs returns a copy of the messages recorded so far.
func (h *MapHost) Logs() []LogEntry {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]LogEntry(nil), h.logs...)
}
