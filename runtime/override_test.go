package runtime_test

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// lockedBuffer is a bytes.Buffer safe for a logger's concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestProviderConfig_overridesAreTheEffectiveDescribe: the operator's name
// and cache hint replace the module's in the one describe the provider
// holds, so its name, its describe, its observer calls and its log lines
// (a guest's log, forwarded by the host) all carry the operator's values,
// never the module's ("evil").
func TestProviderConfig_overridesAreTheEffectiveDescribe(t *testing.T) {
	ctx := context.WithoutCancel(t.Context())
	obs := &recordingObserver{}
	logs := &lockedBuffer{}
	rt, err := runtime.New(ctx, runtime.NewConfig().WithObserver(obs).
		WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })

	hint := &abi.CacheHint{TTLMs: 60_000, Scope: abi.ScopePrivate}
	p, err := loadHostile(t, rt, "logspam.wasm", hostileConfig().WithName("docs").WithCacheHint(hint))
	require.NoError(t, err)
	hint.Scope = abi.ScopePublic // the config holds its own copy

	require.Equal(t, "docs", p.Name())
	d := p.Describe()
	require.Equal(t, "docs", d.Name)
	require.Equal(t, &abi.CacheHint{TTLMs: 60_000, Scope: abi.ScopePrivate}, d.Cache)
	_, err = p.Read(ctx, "evil:logspam")
	require.NoError(t, err)

	obs.mu.Lock()
	require.Equal(t, []string{"docs/read/"}, obs.calls)
	obs.mu.Unlock()
	out := logs.String()
	require.Contains(t, out, "provider=docs")
	require.NotContains(t, out, "provider=evil")
}

// TestProviderConfig_badNameRefusedBeforeCompiling: a name outside the abi
// rule is a config error at Load, with the rule, whatever the module.
func TestProviderConfig_badNameRefusedBeforeCompiling(t *testing.T) {
	rt := newHostileRuntime(t, &logSink{})
	for _, name := range []string{"Docs", "-docs", "a b", string(make([]byte, abi.MaxNameLength+1)), "docs\x00"} {
		_, err := rt.Load(t.Context(), "x", []byte("not wasm at all"), testkit.Limits(runtime.NewProviderConfig()).WithName(name))
		require.ErrorIs(t, err, runtime.ErrConfig, "%q", name)
		require.ErrorContains(t, err, "use 1-64 of [a-z0-9._-]", "%q", name)
	}
}

// TestProviderConfig_badCacheHintRefused: a cache hint outside the abi
// rule is a config error at Load, before the module is compiled.
func TestProviderConfig_badCacheHintRefused(t *testing.T) {
	rt := newHostileRuntime(t, &logSink{})
	for _, h := range []abi.CacheHint{{TTLMs: -1, Scope: abi.ScopePublic}, {TTLMs: 366 * 24 * 3600 * 1000, Scope: abi.ScopePublic}, {TTLMs: 1, Scope: "world"}} {
		_, err := rt.Load(t.Context(), "x", []byte("not wasm at all"), testkit.Limits(runtime.NewProviderConfig()).WithCacheHint(&h))
		require.ErrorIs(t, err, runtime.ErrConfig, "%+v", h)
		require.ErrorContains(t, err, "cache hint", "%+v", h)
	}
}
