package testkit_test

import (
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// TestLimits: the helper sets the three time limits of a real
// runtime.ProviderConfig, and a limit set after it wins.
func TestLimits(t *testing.T) {
	c := testkit.Limits(runtime.NewProviderConfig())
	require.Equal(t, testkit.Patient, c.Timeout())
	require.Equal(t, 200*time.Millisecond, c.WithTimeout(200*time.Millisecond).Timeout())
	require.Less(t, testkit.Patient, 20*time.Minute, "under make test's -timeout, so that a hang ends with a goroutine dump")
	require.NotEqual(t, runtime.DefaultTimeout, testkit.Patient)
}

func TestFill(t *testing.T) {
	a, b := time.Duration(0), time.Second
	testkit.Fill(&a, &b)
	require.Equal(t, testkit.Patient, a, "a zero limit becomes patient")
	require.Equal(t, time.Second, b, "a limit the test wrote wins")
}

// TestFlags: the flags parse as durations, in pairs.
func TestFlags(t *testing.T) {
	f := testkit.Flags()
	require.Len(t, f, 6)
	for i := 0; i < len(f); i += 2 {
		d, err := time.ParseDuration(f[i+1])
		require.NoError(t, err, f[i])
		require.Equal(t, testkit.Patient, d, f[i])
	}
}

func TestWriteConfig(t *testing.T) {
	path := testkit.WriteConfig(t, `{"providers": []}`)
	for _, name := range []string{"mcp.json", "minimal.wasm", "good.wasm", "docs"} {
		_, err := os.Stat(filepath.Join(filepath.Dir(path), name))
		require.NoError(t, err, name)
	}
	require.Contains(t, testkit.FilesConfig("a", 2), `"compileTimeout": "10m0s"`)
}

// fakeTB records a failure; its FailNow ends the calling goroutine, as
// testing.T's does.
type fakeTB struct {
	testing.TB
	mu     sync.Mutex
	failed bool
	logs   []string
}

func (f *fakeTB) Helper()      {}
func (f *fakeTB) Name() string { return "fake" }
func (f *fakeTB) Log(args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logs = append(f.logs, fmt.Sprint(args...))
}
func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed = true
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}
func (f *fakeTB) FailNow() {
	f.mu.Lock()
	f.failed = true
	f.mu.Unlock()
	goruntime.Goexit()
}

// eventually runs testkit.Eventually on its own goroutine, as a test would
// on the test's, and reports whether it failed.
func eventually(cond func() bool) (*fakeTB, bool) {
	tb := &fakeTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		testkit.Eventually(tb, cond)
	}()
	<-done
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return tb, tb.failed
}

// TestEventually: it returns once the condition holds, and a condition
// that fails a require inside itself fails the wait on the spot; no
// deadline is involved in either (testkit.Wait is five minutes).
func TestEventually(t *testing.T) {
	var n atomic.Int32
	_, failed := eventually(func() bool { return n.Add(1) == 3 })
	require.False(t, failed)
	require.EqualValues(t, 3, n.Load(), "checked until it held, and not after")

	tb, failed := eventually(func() bool {
		require.Equal(&fakeTB{}, 1, 2)
		panic("unreachable: the require above ended the goroutine")
	})
	require.True(t, failed)
	require.Contains(t, strings.Join(tb.logs, "\n"), "stopped its goroutine")
}
