package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

func TestPercentFor(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, Percent},
		{2 << 20, Percent},     // 800 % would be Headroom: the ceiling binds
		{4 << 20, Percent},     // exactly Headroom at Percent
		{8 << 20, 200},         // half of it
		{20 << 20, 80},         // a Go guest's server under load
		{32 << 20, MinPercent}, // Headroom*100/MinPercent
		{1 << 30, MinPercent},  // the floor binds
	} {
		require.Equal(t, c.want, percentFor(c.live, Percent), "live %d", c.live)
	}
}

// TestTuner: real collections, with 40 MiB held live and then dropped,
// move GOGC down to what gives Headroom over the live heap and back up to
// the ceiling. It waits for the tuner's own cycle count, never a clock.
func TestTuner(t *testing.T) {
	old := debug.SetGCPercent(Percent)
	defer debug.SetGCPercent(old)
	tu := startTuner(Percent)
	collect := func() {
		n := tu.cycles.Load()
		runtime.GC()
		for tu.cycles.Load() == n { // the finalizer runs after the collection
			runtime.Gosched()
		}
	}
	ballast := make([]byte, 40<<20)
	for i := range ballast {
		ballast[i] = byte(i)
	}
	testkit.Eventually(t, func() bool { collect(); return gogc() <= 40*Percent/100 },
		"40 MiB live: GOGC should fall to at most 40 % of the ceiling")
	require.GreaterOrEqual(t, gogc(), MinPercent)
	require.Equal(t, int64(gogc()), tu.set.Load())
	runtime.KeepAlive(ballast)
	ballast = nil
	testkit.Eventually(t, func() bool { collect(); return gogc() == Percent },
		"the ballast dropped: GOGC should return to the ceiling")
}

// gogc is the GOGC in effect, read without changing it.
func gogc() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}
