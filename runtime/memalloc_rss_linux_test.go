package runtime_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// growChildEnv makes the test binary the child of TestGrowPeakRSS: its
// value is "cap concurrency rounds".
const growChildEnv = "MCPW_GROW_PEAK_RSS_CHILD"

// The child's main goroutine stays on the main thread, so that the exit_group
// comes from the thread runPeakRSS traces: when another thread exits the
// process, the traced one may die without its exit stop, and the peak is lost.
func init() {
	if os.Getenv(growChildEnv) != "" {
		goruntime.LockOSThread()
	}
}

// growOverhead is what the child holds besides guest memory: the Go
// runtime, the test binary, wazero and the compiled fixture (about 15 MiB
// measured, 35 MiB under the race detector), with room to spare.
const growOverhead = 128 << 20

// TestGrowPeakRSS: guests that grow their memory one 64 KiB page at a time
// to the cap, filling every page, on every call (the pool recycles each
// instance after one call), cost the host at most concurrency × cap plus a
// fixed overhead at peak, measured as the peak RSS of a child process. With
// memory in a Go slice that memory.grow reallocates, the old copies waited
// for the garbage collector: over 1 GiB for eight guests at 64 MiB, about
// 4 GiB for one at 1 GiB.
func TestGrowPeakRSS(t *testing.T) {
	if spec := os.Getenv(growChildEnv); spec != "" {
		growChild(t, spec)
		return
	}
	for _, c := range []struct {
		name         string
		cap          uint64
		conc, rounds int
	}{
		{"8x64MiB", 64 << 20, 8, 4},
		{"1x1GiB", 1 << 30, 1, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			budget := int64(c.conc)*int64(c.cap) + growOverhead
			outPath := filepath.Join(t.TempDir(), "out") // a file: runPeakRSS waits for the process, not for copiers
			out, err := os.Create(outPath)
			require.NoError(t, err)
			cmd := exec.Command(os.Args[0], "-test.run=^TestGrowPeakRSS$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d %d %d", growChildEnv, c.cap, c.conc, c.rounds))
			cmd.Stdout, cmd.Stderr = out, out
			status, rss, err := runPeakRSS(cmd, 10*time.Minute)
			_ = out.Close()
			require.NoError(t, err)
			b, err := os.ReadFile(outPath)
			require.NoError(t, err)
			require.True(t, status.Exited(), "the child was killed (%v): %s", status.Signal(), b)
			require.Zero(t, status.ExitStatus(), "the child failed: %s", b)
			require.Contains(t, string(b), "grew to the cap", "the child ran the workload")
			t.Logf("peak RSS %d MiB, budget %d MiB (%d × %d MiB + %d MiB)", rss>>20, budget>>20, c.conc, c.cap>>20, growOverhead>>20)
			require.Positive(t, rss)
			require.LessOrEqual(t, rss, budget, "peak RSS over concurrency × cap + overhead")
		})
	}
}

// growChild runs conc goroutines that each read evil:growfill rounds
// times, every read on a fresh instance that grows to capBytes.
func growChild(t *testing.T, spec string) {
	var capBytes uint64
	var conc, rounds int
	_, err := fmt.Sscan(spec, &capBytes, &conc, &rounds)
	require.NoError(t, err)
	ctx := context.Background()
	rt, err := runtime.New(ctx, runtime.NewConfig().WithMaxConcurrency(conc))
	require.NoError(t, err)
	defer func() { require.NoError(t, rt.Close(ctx)) }()
	// The deadline is not what this test is about: it only must not decide it.
	cfg := testkit.Limits(runtime.NewProviderConfig()).WithMemoryLimit(capBytes).WithPoolSize(conc).WithRecycleAfter(1).
		WithTimeout(5 * time.Minute)
	p, err := rt.Load(ctx, "grow", fixture(t, "grow.wasm"), cfg)
	require.NoError(t, err)
	defer func() { require.NoError(t, p.Close(ctx)) }()
	want := fmt.Sprint(capBytes >> 16)
	errs := make([]error, conc)
	var wg sync.WaitGroup
	for g := range conc {
		wg.Go(func() {
			for range rounds {
				res, err := p.Read(ctx, "evil:growfill")
				if err == nil && *res.Contents[0].Text != want {
					err = fmt.Errorf("grew to %s pages, want %s", *res.Contents[0].Text, want)
				}
				if err != nil {
					errs[g] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	t.Logf("%d guests × %d rounds grew to the cap (%d pages)", conc, rounds, capBytes>>16)
}
