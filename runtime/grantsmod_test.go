package runtime_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// pair parses the probe's "<a>,<b>" answer.
func pair(t *testing.T, s string) (uint64, uint64) {
	t.Helper()
	a, b, ok := strings.Cut(s, ",")
	require.True(t, ok, s)
	x, err := strconv.ParseUint(a, 10, 64)
	require.NoError(t, err)
	y, err := strconv.ParseUint(b, 10, 64)
	require.NoError(t, err)
	return x, y
}

// TestEnvironNeverReachesGuest: the host process's environment, secrets
// included, is invisible to a guest whatever it is granted. The one
// variable a guest sees is GOMEMLIMIT, three quarters of its own memory
// limit (probe's default, 64 MiB): "GOMEMLIMIT=50331648" and its NUL.
func TestEnvironNeverReachesGuest(t *testing.T) {
	t.Setenv("MCPW_TEST_SECRET", "hunter2")
	require.NotEmpty(t, os.Environ())
	for name, g := range map[string]runtime.Grants{
		"nothing":    {Dirs: []runtime.DirGrant{{HostPath: t.TempDir()}}},
		"everything": {Dirs: []runtime.DirGrant{{HostPath: t.TempDir()}}, Config: map[string]string{"k": "v"}, Secrets: map[string]string{"s": "x"}, Clock: true, Random: true},
	} {
		got, err := probe(t, grantProbe(t, g), "!e")
		require.NoError(t, err, name)
		require.Equal(t, "1,"+strconv.Itoa(len("GOMEMLIMIT=50331648")+1), got, "%s: environ_sizes_get must report GOMEMLIMIT alone", name)
	}
}

func TestClockGrant(t *testing.T) {
	dir := runtime.DirGrant{HostPath: t.TempDir()}
	t.Run("fake by default", func(t *testing.T) {
		p := grantProbe(t, runtime.Grants{Dirs: []runtime.DirGrant{dir}})
		got, err := probe(t, p, "!c")
		require.NoError(t, err)
		wall, _ := pair(t, got)
		require.Less(t, wall, uint64(time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()), "the fake clock is a fixed instant in the past")
	})
	t.Run("real when granted", func(t *testing.T) {
		p := grantProbe(t, runtime.Grants{Dirs: []runtime.DirGrant{dir}, Clock: true})
		got, err := probe(t, p, "!c")
		require.NoError(t, err)
		wall, mono1 := pair(t, got)
		require.InDelta(t, time.Now().UnixNano(), float64(wall), float64(time.Minute))
		time.Sleep(5 * time.Millisecond)
		got, err = probe(t, p, "!c")
		require.NoError(t, err)
		_, mono2 := pair(t, got)
		require.GreaterOrEqual(t, mono2-mono1, uint64(5*time.Millisecond), "the monotonic clock advances in real time")
	})
}

func TestRandomGrant(t *testing.T) {
	dir := runtime.DirGrant{HostPath: t.TempDir()}
	read := func(g runtime.Grants) string {
		got, err := probe(t, grantProbe(t, g), "!r")
		require.NoError(t, err)
		return got
	}
	fake := runtime.Grants{Dirs: []runtime.DirGrant{dir}}
	require.Equal(t, read(fake), read(fake), "the default source is deterministic")
	real := runtime.Grants{Dirs: []runtime.DirGrant{dir}, Random: true}
	a, b := read(real), read(real)
	require.NotEqual(t, a, b, "a granted source is crypto/rand")
	require.NotEqual(t, read(fake), a)
}
