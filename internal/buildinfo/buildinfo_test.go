package buildinfo

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFromBuildInfo(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for _, tt := range []struct {
		name     string
		bi       debug.BuildInfo
		version  string
		revision string
	}{
		{"module version wins", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.4.0"}, Settings: vcs("abc123", "false")}, "v1.4.0", "abc123"},
		{"pseudo-version stamped by go build", debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261128041012-cd2cf3d00000+dirty"}, Settings: vcs("cd2cf3d00000", "true")}, "v0.0.0-20261128041012-cd2cf3d00000+dirty", "cd2cf3d00000"},
		{"devel module: the revision", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("abc123", "false")}, "abc123", "abc123"},
		{"devel module, dirty tree", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("abc123", "true")}, "abc123-modified", "abc123"},
		{"nothing recorded", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel", ""},
		{"empty record", debug.BuildInfo{}, "devel", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := FromBuildInfo(&tt.bi)
			require.Equal(t, tt.version, got.Version)
			require.Equal(t, tt.revision, got.Revision)
			require.NotEmpty(t, got.GoVersion)
		})
	}
}

// TestRead: a test binary has build info; whatever it holds, Read names a
// version and the toolchain.
func TestRead(t *testing.T) {
	got := Read()
	require.NotEmpty(t, got.Version)
	require.NotEqual(t, "dev", got.Version)
	require.Contains(t, got.GoVersion, "go")
}
