package runtime_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// TestGoMemLimitFollowsMemoryLimit: the GOMEMLIMIT a guest is given is
// three quarters of the memory limit the operator set, whatever it is.
func TestGoMemLimitFollowsMemoryLimit(t *testing.T) {
	ctx := context.WithoutCancel(t.Context())
	wasm, err := os.ReadFile(filepath.Join("testdata", "grantprobe.wasm"))
	require.NoError(t, err)
	rt, err := runtime.New(ctx, runtime.NewConfig())
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(ctx) })
	for limit, want := range map[uint64]string{1 << 20: "786432", 256 << 20: "201326592"} {
		p, err := rt.Load(ctx, "grantprobe", wasm, testkit.Limits(runtime.NewProviderConfig()).WithPoolSize(1).WithMemoryLimit(limit).
			WithGrants(runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: t.TempDir()}}}))
		require.NoError(t, err)
		got, err := probe(t, p, "!e")
		require.NoError(t, err)
		require.Equal(t, "1,"+strconv.Itoa(len("GOMEMLIMIT="+want)+1), got, "memory limit %d", limit)
		require.NoError(t, p.Close(ctx))
	}
}
