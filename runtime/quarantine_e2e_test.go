package runtime_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// TestQuarantine_RealGuest: a provider that traps on every call is
// quarantined after the threshold, refused without running guest code while
// quarantined, given one trial after the backoff, and healed by a success;
// another provider in the same Runtime is never affected.
func TestQuarantine_RealGuest(t *testing.T) {
	rt := newHostileRuntime(t, &logSink{})
	cfg := testkit.Limits(runtime.NewProviderConfig()).WithQuarantine(3, 300*time.Millisecond, time.Second)
	bad, err := loadHostile(t, rt, "traps.wasm", cfg)
	require.NoError(t, err)
	other, err := loadHostile(t, rt, "good.wasm", cfg)
	require.NoError(t, err)
	ctx := t.Context()

	for range 3 {
		_, err := bad.Read(ctx, "evil:unreachable")
		require.ErrorIs(t, err, abi.ErrTrap)
	}
	st := bad.Stats()
	require.True(t, st.Quarantined)
	require.Equal(t, 1, st.Quarantines)
	calls := st.Calls

	_, err = bad.Read(ctx, "evil:good")
	require.ErrorIs(t, err, abi.ErrQuarantined, "even a good call is refused while quarantined")
	require.Equal(t, calls, bad.Stats().Calls, "no guest code ran")

	_, err = other.Read(ctx, "evil:good")
	require.NoError(t, err, "other providers are unaffected")

	require.Eventually(t, func() bool { return !bad.Stats().Quarantined }, testkit.Wait, 20*time.Millisecond)
	_, err = bad.Read(ctx, "evil:good")
	require.NoError(t, err, "the trial call after the backoff runs and heals the provider")
	_, err = bad.Read(ctx, "evil:good")
	require.NoError(t, err)
	require.False(t, bad.Stats().Quarantined)
}
