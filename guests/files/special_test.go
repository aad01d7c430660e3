//go:build linux

package main_test

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// specialTree is a granted directory holding every kind of file that is
// not a regular file, at the top and deeper, next to regular files. It
// returns the regular files (which must be listed) and, for each special
// path, what its log line must say.
func specialTree(t *testing.T) (root string, regular []string, special map[string]string) {
	t.Helper()
	root = t.TempDir()
	regular = []string{"a.txt", "deep/er/d.txt", "sub/b.txt", "z/c.txt"}
	for _, rel := range regular {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("text of "+rel), 0o644))
	}
	special = map[string]string{}
	at := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	for _, rel := range []string{"pipe", "sub/pipe", "deep/er/pipe"} {
		require.NoError(t, syscall.Mkfifo(at(rel), 0o644))
		special[rel] = "special file"
	}
	for _, rel := range []string{"sock", "z/sock"} {
		l, err := net.Listen("unix", at(rel))
		require.NoError(t, err)
		t.Cleanup(func() { _ = l.Close() })
		special[rel] = "special file"
	}
	// A device node whose open would fail (major 240 is for local use and
	// has no driver here), and a real one (the null device).
	devices := map[string]uint32{"sub/nodev": syscall.S_IFCHR, "null": syscall.S_IFCHR, "z/blk": syscall.S_IFBLK}
	for rel, kind := range devices {
		dev := 240 << 8
		if rel == "null" {
			dev = 1<<8 | 3
		}
		if err := syscall.Mknod(at(rel), kind|0o644, dev); err != nil {
			t.Logf("no device nodes in this test: mknod: %v", err)
			break
		}
		special[rel] = map[uint32]string{syscall.S_IFCHR: "a character device", syscall.S_IFBLK: "a block device"}[kind]
	}
	for rel, target := range map[string]string{
		"loop": "loop", "loopa": "loopb", "loopb": "loopa", "dangling": "nowhere", "sub/topipe": "pipe", "tosock": "sock",
	} {
		require.NoError(t, os.Symlink(target, at(rel)))
		special[rel] = "" // never listed, never followed, not logged
	}
	return root, regular, special
}

// TestFilesWasmSpecialFiles: named pipes, sockets, devices and broken
// symlinks in a granted directory, at the top or deeper, are skipped one
// by one with a log line naming each; the regular files next to them are
// all listed, and reading a special path is a prompt not_found.
//
// Before: WASI has no file type for a pipe or a socket, so Go's
// os.ReadDir in the guest stats it, the host refuses (it never opens
// special files) and the whole directory failed: at the top, the listing
// failed with a message blaming the grant; deeper, the subtree was
// dropped.
func TestFilesWasmSpecialFiles(t *testing.T) { eachBuild(t, testFilesWasmSpecialFiles) }

func testFilesWasmSpecialFiles(t *testing.T, wasm string) {
	root, regular, special := specialTree(t)
	p, logs := loadFiles(t, wasm, root)
	ctx := t.Context()

	require.Equal(t, regular, listNames(t, p))
	require.Empty(t, logs.lines("grant the files provider"), "a special file is not the grant's fault")
	for rel, what := range special {
		if what != "" {
			require.NotEmpty(t, logs.lines("guest: skip /data/"+rel+": ", what), "no log line for %s (%s) in:\n%s", rel, what, logs)
		}
	}
	for rel := range special {
		_, err := p.Read(ctx, "file:///data/"+rel)
		require.ErrorIs(t, err, abi.ErrNotFound, rel)
	}
	for _, rel := range regular {
		res, err := p.Read(ctx, "file:///data/"+rel)
		require.NoError(t, err, rel)
		require.Equal(t, "text of "+rel, *res.Contents[0].Text)
	}

	t.Run("complete", func(t *testing.T) {
		for partial, want := range map[string][]string{
			"":     {"a.txt", "deep/", "sub/", "z/"},
			"sub/": {"sub/b.txt"},
			"z/":   {"z/c.txt"},
		} {
			cr, err := p.Complete(ctx, abi.CompleteRequest{Template: "file:///data/{+path}", Argument: abi.CompleteArgument{Name: "path", Value: partial}})
			require.NoError(t, err)
			require.Equal(t, want, cr.Values, partial)
		}
	})
	t.Run("changes", func(t *testing.T) {
		base, err := p.Changes(ctx, abi.ChangesRequest{})
		require.NoError(t, err)
		paths := []string{"/data/sub", "/data/deep"}
		for rel := range special {
			paths = append(paths, "/data/"+rel)
		}
		// With the cursor, each path is refreshed on its own; with the
		// mount among them, or without the cursor, the tree is rescanned.
		for _, req := range []abi.ChangesRequest{
			{Cursor: base.Cursor, Paths: paths},
			{Cursor: base.Cursor, Paths: append(paths, "/data")},
			{Paths: paths},
			{Cursor: "s:stale", Paths: paths},
		} {
			ch, err := p.Changes(ctx, req)
			cursor := req.Cursor
			require.NoError(t, err, cursor)
			require.Equal(t, base.Cursor, ch.Cursor, "the specials are not in the snapshot")
			for _, u := range ch.Updated {
				rel := strings.TrimPrefix(u, "file:///data/")
				require.Contains(t, regular, rel, "reported as changed")
			}
		}
	})
	require.Zero(t, p.Stats().Faults)
}

// TestFilesWasmChurn: files and named pipes appearing and disappearing
// while the guest lists their directory (between its read of the names,
// of the types and of each entry) never fail a listing or hide the stable
// files next to them.
func TestFilesWasmChurn(t *testing.T) { eachBuild(t, testFilesWasmChurn) }

func testFilesWasmChurn(t *testing.T, wasm string) {
	root := t.TempDir()
	stable := []string{"churn/keep1.txt", "churn/keep2.txt", "top.txt"}
	for _, rel := range stable {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("x"), 0o644))
	}
	p, _ := loadFiles(t, wasm, root)

	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			name := filepath.Join(root, "churn", "p"+string(rune('a'+i%8)))
			if i%2 == 0 {
				_ = syscall.Mkfifo(name, 0o644)
				_ = os.WriteFile(name+".txt", nil, 0o644)
			} else {
				_ = os.Remove(name)
				_ = os.Remove(name + ".txt")
			}
		}
	}()
	defer func() { close(stop); <-done }()
	for range 100 {
		names := listNames(t, p)
		for _, rel := range stable {
			require.Contains(t, names, rel)
		}
		for _, n := range names {
			require.True(t, slices.Contains(stable, n) || strings.HasSuffix(n, ".txt"), "listed %s", n)
		}
	}
	require.Zero(t, p.Stats().Faults)
}
