package runtime

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestProviderConfig_Defaults(t *testing.T) {
	c := NewProviderConfig()
	require.NoError(t, c.validate())
	require.Equal(t, 5*time.Second, c.timeout)
	require.Equal(t, uint64(64<<20), c.memoryLimit)
	require.Equal(t, 4<<20, c.outputLimit)
	require.Equal(t, 4, c.poolSize)
	require.Empty(t, c.grants.Dirs, "nothing is granted by default")
	require.Empty(t, c.grants.Config, "nothing is granted by default")
}

func TestProviderConfig_WithIsImmutable(t *testing.T) {
	base := NewProviderConfig()
	changed := base.WithTimeout(time.Second).WithPoolSize(9).WithGrants(Grants{Config: map[string]string{"k": "v"}})
	require.Equal(t, DefaultTimeout, base.timeout)
	require.Equal(t, DefaultPoolSize, base.poolSize)
	require.Empty(t, base.grants.Config)
	require.Equal(t, time.Second, changed.timeout)
	require.Equal(t, 9, changed.poolSize)
}

func TestProviderConfig_Invalid(t *testing.T) {
	tests := map[string]ProviderConfig{
		"zero timeout":     NewProviderConfig().WithTimeout(0),
		"huge timeout":     NewProviderConfig().WithTimeout(2 * time.Hour),
		"tiny memory":      NewProviderConfig().WithMemoryLimit(100),
		"memory over 4GiB": NewProviderConfig().WithMemoryLimit(5 << 30),
		"tiny output":      NewProviderConfig().WithOutputLimit(10),
		"zero pool":        NewProviderConfig().WithPoolSize(0),
		"negative recycle": NewProviderConfig().WithRecycleAfter(-1),
		"negative idle":    NewProviderConfig().WithIdleTimeout(-time.Second),
		"idle over 24h":    NewProviderConfig().WithIdleTimeout(MaxIdleTimeout + time.Second),
		"bad quarantine":   NewProviderConfig().WithQuarantine(0, time.Second, time.Minute),
		"relative dir":     NewProviderConfig().WithGrants(Grants{Dirs: []DirGrant{{HostPath: "rel", GuestPath: "/data"}}}),
		"guest root":       NewProviderConfig().WithGrants(Grants{Dirs: []DirGrant{{HostPath: "/tmp", GuestPath: "/"}}}),
		"guest unclean":    NewProviderConfig().WithGrants(Grants{Dirs: []DirGrant{{HostPath: "/tmp", GuestPath: "/a/../b"}}}),
		"guest twice":      NewProviderConfig().WithGrants(Grants{Dirs: []DirGrant{{HostPath: "/tmp", GuestPath: "/a"}, {HostPath: "/var", GuestPath: "/a"}}}),
		"bad config key":   NewProviderConfig().WithGrants(Grants{Config: map[string]string{"a b": "v"}}),
	}
	for name, c := range tests {
		t.Run(name, func(t *testing.T) {
			err := c.validate()
			require.ErrorIs(t, err, ErrConfig)
			_, lerr := newTestRuntime(t, NewConfig()).Load(context.Background(), "x", minimalWasm(t), c)
			require.ErrorIs(t, lerr, ErrConfig, "Load must validate the config")
		})
	}
}

func TestConfig_Invalid(t *testing.T) {
	_, err := New(context.Background(), NewConfig().WithMaxConcurrency(0))
	require.ErrorIs(t, err, ErrConfig)
}

// TestLoad_UnrequestedDirGrant: filesystem requests are informational; a
// directory granted to a provider that requests none is mounted anyway, at
// its real path.
func TestLoad_UnrequestedDirGrant(t *testing.T) {
	rt := newTestRuntime(t, NewConfig())
	dir := t.TempDir()
	p, err := rt.Load(context.Background(), "minimal", minimalWasm(t),
		NewProviderConfig().WithGrants(Grants{Dirs: []DirGrant{{HostPath: dir}}}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	require.Equal(t, []mountedPath{{watch: real, guest: filepath.ToSlash(real)}}, p.mountedPaths())
}
