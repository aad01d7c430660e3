package runtime

import (
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// realURI is the file:// URI the files provider gives rel in the granted
// directory dir: dir's real path, each segment escaped.
func realURI(t *testing.T, dir, rel string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	guest, _, err := MountedAt(DirGrant{HostPath: real})
	require.NoError(t, err)
	segs := strings.Split(strings.TrimPrefix(path.Join(guest, rel), "/"), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "file:///" + strings.Join(segs, "/")
}
