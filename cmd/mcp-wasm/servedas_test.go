package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// TestServedAs: the start-up line names each grant with the URIs of its
// files: real paths escaped, "/" as file:///..., a single file as its own
// URI, an operator's guest path as given, a missing path as itself.
func TestServedAs(t *testing.T) {
	dir := t.TempDir()
	spaced := filepath.Join(dir, "my notes")
	require.NoError(t, os.Mkdir(spaced, 0o755))
	file := filepath.Join(spaced, "to do.md")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	real, err := filepath.EvalSymlinks(spaced)
	require.NoError(t, err)
	esc := fileURI(filepath.ToSlash(real))
	for _, tc := range []struct {
		grants []runtime.DirGrant
		want   string
	}{
		{[]runtime.DirGrant{{HostPath: "/"}}, "/ as file:///..."},
		{[]runtime.DirGrant{{HostPath: spaced}}, spaced + " as " + esc + "/..."},
		{[]runtime.DirGrant{{HostPath: file}}, file + " as " + esc + "/to%20do.md"},
		{[]runtime.DirGrant{{HostPath: spaced, GuestPath: "/data"}, {HostPath: filepath.Join(dir, "gone")}},
			spaced + " as file:///data/..., " + filepath.Join(dir, "gone")},
	} {
		require.Equal(t, tc.want, servedAs(tc.grants))
	}
	require.Contains(t, esc, "my%20notes")
}
