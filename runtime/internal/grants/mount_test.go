package grants

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/runtime/internal/errs"
)

// planTree is a directory with a symlink to it, two files, a
// subdirectory and a symlink to one of the files.
func planTree(t *testing.T) (base, real string) {
	t.Helper()
	base = t.TempDir()
	real = filepath.Join(base, "notes")
	require.NoError(t, os.MkdirAll(filepath.Join(real, "sub"), 0o755))
	for _, f := range []string{"a.md", "b.md", "sub/c.md"} {
		require.NoError(t, os.WriteFile(filepath.Join(real, f), []byte(f), 0o644))
	}
	require.NoError(t, os.Symlink(real, filepath.Join(base, "link")))
	require.NoError(t, os.Symlink(filepath.Join(real, "a.md"), filepath.Join(base, "alias.md")))
	real, err := filepath.EvalSymlinks(real)
	require.NoError(t, err)
	return base, real
}

func TestPlanMounts(t *testing.T) {
	base, real := planTree(t)
	g := func(paths ...string) []Dir {
		var out []Dir
		for _, p := range paths {
			out = append(out, Dir{Host: filepath.Join(base, p)})
		}
		return out
	}
	slash := filepath.ToSlash
	ok := map[string]struct {
		dirs []Dir
		want []Mount
	}{
		"a directory at its real path": {g("notes"), []Mount{{Guest: slash(real), Host: real}}},
		"through a symlink":            {g("link"), []Mount{{Guest: slash(real), Host: real}}},
		"a file in its real directory": {g("alias.md"), []Mount{{Guest: slash(real), Host: real, Only: map[string]string{"a.md": "a.md"}}}},
		"files of one directory share a mount": {g("notes/a.md", "link/b.md"),
			[]Mount{{Guest: slash(real), Host: real, Only: map[string]string{"a.md": "a.md", "b.md": "b.md"}}}},
		"a file beside a granted directory": {g("notes/a.md", "notes/sub"),
			[]Mount{{Guest: slash(real), Host: real, Only: map[string]string{"a.md": "a.md"}}, {Guest: slash(real) + "/sub", Host: filepath.Join(real, "sub")}}},
		"an explicit guest path": {[]Dir{{Host: filepath.Join(base, "link"), Guest: "/data"}},
			[]Mount{{Guest: "/data", Host: real}}},
		"a file at an explicit guest path keeps the operator's name": {[]Dir{{Host: filepath.Join(base, "alias.md"), Guest: "/cfg"}},
			[]Mount{{Guest: "/cfg", Host: real, Only: map[string]string{"alias.md": "a.md"}}}},
	}
	for name, tc := range ok {
		t.Run(name, func(t *testing.T) {
			plans, err := Plan(tc.dirs)
			require.NoError(t, err)
			for i := range plans {
				plans[i].Granted = nil
			}
			require.Equal(t, tc.want, plans)
		})
	}
	refused := map[string]struct {
		dirs []Dir
		fix  string
	}{
		"the same directory twice":      {g("notes", "link"), "grant only the outer directory"},
		"a directory inside another":    {g("notes", "notes/sub"), "grant only the outer directory"},
		"a directory around another":    {g("notes/sub", "link"), "grant only the outer directory"},
		"a file inside a directory":     {g("notes", "notes/sub/c.md"), "grant only the outer directory"},
		"a file in a granted directory": {g("link", "notes/a.md"), "grant only the outer directory"},
		"the same file twice":           {g("notes/a.md", "alias.md"), "grant it once"},
		"a file where a directory is": {[]Dir{{Host: filepath.Join(base, "notes/a.md")}, {Host: filepath.Join(base, "notes/sub"), Guest: slash(real) + "/a.md"}},
			"side by side"},
		"an explicit guest path over a real one": {[]Dir{{Host: filepath.Join(base, "notes/sub")}, {Host: filepath.Join(base, "notes/b.md"), Guest: slash(real) + "/sub"}},
			"side by side"},
		"a missing path": {g("nope"), "grant an existing directory or file"},
	}
	for name, tc := range refused {
		t.Run(name, func(t *testing.T) {
			_, err := Plan(tc.dirs)
			require.ErrorIs(t, err, errs.ErrConfig)
			require.ErrorContains(t, err, tc.fix)
		})
	}
}

// TestGuestPathFor: RFC 8089 forms on every OS the binary builds for.
func TestGuestPathFor(t *testing.T) {
	for _, tc := range []struct{ vol, rest, want string }{
		{"", "/home/me/notes", "/home/me/notes"},
		{"", "/", "/"},
		{"", "/Users/me/Library/../notes", "/Users/me/notes"},
		{"C:", "/Users/me/notes", "/C:/Users/me/notes"},
		{"c:", "/", "/c:"},
		{"D:", "/a b/é", "/D:/a b/é"},
	} {
		got, err := guestPathFor(tc.vol, tc.rest)
		require.NoError(t, err, tc)
		require.Equal(t, tc.want, got, tc)
	}
	for _, tc := range []struct{ vol, rest, fix string }{
		{`\\server\share`, "/x", "give it a guest path in a config file"},
		{"", "rel/x", "grant an absolute path"},
		{"1:", "/x", "give it a guest path"},
	} {
		_, err := guestPathFor(tc.vol, tc.rest)
		require.ErrorContains(t, err, tc.fix, tc)
	}
}
