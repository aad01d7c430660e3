package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// recordingObserver keeps every event it is told about.
type recordingObserver struct {
	mu    sync.Mutex
	calls []string // provider/op/kind
	waits int
}

func (o *recordingObserver) ProviderCall(provider, op, kind string, d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls = append(o.calls, provider+"/"+op+"/"+kind)
}

func (o *recordingObserver) PoolWait(provider string, d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.waits++
}

// TestObserverSeesEveryCallWithItsKind drives real hostile guests through a
// runtime with an observer and checks each call is reported once, with the
// abi kind of its outcome.
func TestObserverSeesEveryCallWithItsKind(t *testing.T) {
	ctx := context.WithoutCancel(t.Context())
	obs := &recordingObserver{}
	rt, err := runtime.New(ctx, runtime.NewConfig().WithObserver(obs).WithLogger(slog.New(&logSink{})))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })

	tests := []struct {
		fixture, uri, kind string
	}{
		{"payload.wasm", "evil:good", ""},
		{"payload.wasm", "evil:notfound", "not_found"},
		{"payload.wasm", "evil:badparams", "invalid_params"},
		{"payload.wasm", "other:x", "bad_input"},
		{"traps.wasm", "evil:unreachable", "trap"},
		{"loop.wasm", "evil:loop", "timeout"},
	}
	providers := map[string]*runtime.Provider{}
	var want []string
	for _, tt := range tests {
		p := providers[tt.fixture]
		if p == nil {
			cfg := hostileConfig()
			if tt.kind == "timeout" {
				cfg = hostileDeadlines(cfg)
			}
			p, err = loadHostile(t, rt, tt.fixture, cfg)
			require.NoError(t, err)
			providers[tt.fixture] = p
		}
		_, err := p.Read(ctx, tt.uri)
		require.Equal(t, tt.kind, runtime.ErrorKind(err), "read %s on %s: %v", tt.uri, tt.fixture, err)
		if tt.kind != "bad_input" { // refused by Read's own checks, before any call
			want = append(want, p.Name()+"/read/"+tt.kind)
		}
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	require.Equal(t, want, obs.calls)
	require.Equal(t, len(want), obs.waits, "every call waited for an instance")
}

func TestErrorKind(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{abi.ErrNotFound, "not_found"},
		{fmt.Errorf("x: %w", abi.ErrTimeout), "timeout"},
		{fmt.Errorf("%w: %w", abi.ErrTimeout, context.DeadlineExceeded), "timeout"},
		{abi.ErrMemory, "memory"},
		{abi.ErrViolation, "abi_violation"},
		{abi.ErrOutputTooLarge, "output_too_large"},
		{abi.ErrQuarantined, "quarantined"},
		{abi.ErrClosed, "closed"},
		{abi.ErrUnsupported, "unsupported"},
		{abi.ErrProviderInternal, "provider_internal"},
		{errors.New("plain"), "other"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, runtime.ErrorKind(tt.err), "%v", tt.err)
	}
}

func TestPoolSizeGetter(t *testing.T) {
	require.Equal(t, runtime.DefaultPoolSize, runtime.NewProviderConfig().PoolSize())
	require.Equal(t, 7, runtime.NewProviderConfig().WithPoolSize(7).PoolSize())
}
