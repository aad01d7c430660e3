package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/runtime"
)

func TestBroadDir(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "users", "me")
	tmp := filepath.Join(base, "tmp")
	for _, d := range []string{filepath.Join(home, "project"), filepath.Join(tmp, "job")} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	require.NoError(t, os.Symlink(home, filepath.Join(base, "link-to-home")))
	t.Setenv("HOME", home)
	t.Setenv("TMPDIR", tmp)
	for dir, broad := range map[string]bool{
		"/": true, home: true, home + "/": true, filepath.Join(base, "users"): true, base: true,
		filepath.Join(base, "link-to-home"): true, tmp: true, filepath.Join(home, "project", ".."): true,
		filepath.Join(home, "project"): false, filepath.Join(tmp, "job"): false,
	} {
		require.Equal(t, broad, broadDir(dir) != "", dir)
	}
}

func TestCheckRoot(t *testing.T) {
	base := t.TempDir()
	t.Setenv("HOME", filepath.Join(base, "home"))
	project := filepath.Join(base, "home", "project")
	require.NoError(t, os.MkdirAll(project, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, "f"), nil, 0o644))
	got, err := checkRoot("file://" + project)
	require.NoError(t, err)
	require.Equal(t, project, got)
	got, err = checkRoot("file://localhost" + project + "/")
	require.NoError(t, err)
	require.Equal(t, project, got)

	for raw, why := range map[string]string{
		"":                                  "not a file:// URI",
		"%zz":                               "not a URI",
		"file:///":                          "root of the file system",
		"file://" + base + "/home":          "your home directory",
		"file://" + project + "/f":          "not a directory",
		"file://" + project + "/missing":    "no such directory",
		"file://" + project + "/../project": "not an absolute, clean path",
		"file://" + project + "//":          "not an absolute, clean path",
		"file:relative/dir":                 "has parts",
		"file://host" + project:             "another machine",
		"file://u@localhost" + project:      "has parts",
		"file://" + project + "#x":          "has parts",
		"file://" + project + "%00":         "not an absolute, clean path",
		"FILE://" + project:                 "", // url.Parse lower-cases the scheme
	} {
		_, err := checkRoot(raw)
		if why == "" {
			require.NoError(t, err, raw)
			continue
		}
		require.Error(t, err, raw)
		require.Contains(t, err.Error(), why, raw)
	}
}

func TestOutermost(t *testing.T) {
	g := func(ps ...string) []runtime.DirGrant {
		var out []runtime.DirGrant
		for _, p := range ps {
			out = append(out, runtime.DirGrant{HostPath: p})
		}
		return out
	}
	require.Equal(t, g("/a", "/a b", "/b"), outermost(g("/a/x", "/b", "/a b", "/a", "/a/x/y", "/a")))
	require.Empty(t, outermost(nil))
}

// FuzzCheckRoot: whatever a client announces, checkRoot does not panic and
// grants only an existing directory that broadDir does not refuse.
func FuzzCheckRoot(f *testing.F) {
	dir := f.TempDir()
	for _, s := range []string{"file://" + dir, "file:///", "file://localhost/tmp", "file:///a/../b", "file:///%00", "http://x/y", "file://" + dir + "/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := checkRoot(raw)
		if err != nil {
			require.Empty(t, got)
			return
		}
		fi, statErr := os.Stat(got)
		require.NoError(t, statErr)
		require.True(t, fi.IsDir())
		require.True(t, filepath.IsAbs(got))
		require.Empty(t, broadDir(got))
		require.False(t, strings.ContainsRune(got, 0))
	})
}
