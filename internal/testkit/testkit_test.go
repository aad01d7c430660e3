package testkit_test

import (
	"os"
	"path/filepath"
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
