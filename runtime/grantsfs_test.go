package runtime_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// grantProbe loads testdata/grantprobe.wasm (see its .wat) with grants.
func grantProbe(t *testing.T, g runtime.Grants) *runtime.Provider {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	wasm, err := os.ReadFile(filepath.Join("testdata", "grantprobe.wasm"))
	require.NoError(t, err)
	rt, err := runtime.New(ctx, runtime.NewConfig())
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(ctx) })
	p, err := rt.Load(ctx, "grantprobe", wasm, testkit.Limits(runtime.NewProviderConfig()).WithPoolSize(1).WithGrants(g))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close(ctx) })
	return p
}

// probe reads "probe:"+what and returns the text, or the error.
func probe(t *testing.T, p *runtime.Provider, what string) (string, error) {
	t.Helper()
	res, err := p.Read(t.Context(), "probe:"+what)
	if err != nil {
		return "", err
	}
	return *res.Contents[0].Text, nil
}

// TestGrantProbeWasmIsCurrent: the committed .wasm is built from the .wat.
func TestGrantProbeWasmIsCurrent(t *testing.T) {
	for _, name := range []string{"grantprobe", "httpprobe"} {
		if _, err := exec.LookPath("wat2wasm"); err != nil {
			t.Skip("wat2wasm not installed (apt-get install -y wabt)")
		}
		out := filepath.Join(t.TempDir(), name+".wasm")
		b, err := exec.Command("wat2wasm", filepath.Join("testdata", name+".wat"), "-o", out).CombinedOutput()
		require.NoError(t, err, "%s", b)
		want, err := os.ReadFile(out)
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join("testdata", name+".wasm"))
		require.NoError(t, err)
		require.True(t, bytes.Equal(want, got), "testdata/%s.wasm is stale: run wat2wasm testdata/%s.wat -o testdata/%s.wasm", name, name, name)
	}
}

// escapeTree is a granted directory with every path trick next to it:
// relative and absolute symlinks out of it, a symlinked parent, a symlink
// inside it, and a hard link to a file outside it.
func escapeTree(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	for p, body := range map[string]string{
		filepath.Join(root, "a.txt"):        "inside",
		filepath.Join(root, "sub", "b.txt"): "deep",
		filepath.Join(outside, "secret"):    "SECRET",
	} {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	links := map[string]string{
		"link_in":      "a.txt",
		"link_out":     "../outside/secret",
		"abs_out":      filepath.Join(outside, "secret"),
		"dir_out":      outside,
		"sub/up":       "..",
		"sub/up_twice": "../..",
	}
	for name, target := range links {
		require.NoError(t, os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))))
	}
	require.NoError(t, os.Link(filepath.Join(outside, "secret"), filepath.Join(root, "hard")))
	return root, outside
}

// TestDirGrantNoEscape drives raw WASI path_open calls (no libc or Go path
// cleaning in between) against a granted tree.
func TestDirGrantNoEscape(t *testing.T) {
	root, outside := escapeTree(t)
	p := grantProbe(t, runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: root}}})
	for path, want := range map[string]string{
		"r3a.txt":            "inside",
		"r3sub/b.txt":        "deep",
		"r3link_in":          "inside",
		"r3sub/../a.txt":     "inside",
		"r3sub/up/a.txt":     "inside",
		"r3./sub/./b.txt":    "deep",
		"r3sub/up/sub/b.txt": "deep",
	} {
		got, err := probe(t, p, path)
		require.NoError(t, err, path)
		require.Equal(t, want, got, path)
	}
	for _, path := range []string{
		"r3../outside/secret",
		"r3sub/../../outside/secret",
		"r3" + filepath.Join(outside, "secret"),
		"r3/etc/passwd",
		"r3link_out",
		"r3abs_out",
		"r3dir_out/secret",
		"r3sub/up_twice/outside/secret",
		"r3sub/up/../outside/secret",
		"n3link_out",
		"r4a.txt", // not a mount
		"r0a.txt", // stdin
		"w3a.txt",
		"w3new.txt",
		"w3sub/new.txt",
	} {
		_, err := probe(t, p, path)
		require.ErrorIs(t, err, abi.ErrNotFound, path)
	}
	_, err := os.Stat(filepath.Join(root, "new.txt"))
	require.ErrorIs(t, err, os.ErrNotExist, "a write created a file")
	b, err := os.ReadFile(filepath.Join(root, "a.txt"))
	require.NoError(t, err)
	require.Equal(t, "inside", string(b), "a write changed a file")

	// A hard link is the same file as its target, wherever the target is:
	// no path check can tell them apart. Documented in RATIONALE.md; the
	// operator owns what is in a granted directory.
	got, err := probe(t, p, "r3hard")
	require.NoError(t, err)
	require.Equal(t, "SECRET", got)
	require.Zero(t, p.Stats().Faults)
}

// TestFileGrant mounts one file: the guest sees a directory holding only
// it, never its siblings, and a symlink swapped in for it later is refused.
func TestFileGrant(t *testing.T) {
	_, outside := escapeTree(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "conf.json")
	require.NoError(t, os.WriteFile(conf, []byte("a=1"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "other.txt"), []byte("OTHER"), 0o644))
	require.NoError(t, os.Symlink(conf, filepath.Join(t.TempDir(), "x"))) // noise
	// A second file, granted through a symlink at a guest path (granting
	// conf twice is refused: see runtime/internal/grants TestPlanMounts).
	other := filepath.Join(t.TempDir(), "b.json")
	require.NoError(t, os.WriteFile(other, []byte("b=1"), 0o644))
	alias := filepath.Join(t.TempDir(), "alias.json")
	require.NoError(t, os.Symlink(other, alias))

	p := grantProbe(t, runtime.Grants{Dirs: []runtime.DirGrant{
		{HostPath: conf},
		{HostPath: alias, GuestPath: "/alias"},
	}})
	for path, want := range map[string]string{
		"r3conf.json":  "a=1",
		"n3conf.json":  "a=1",
		"r4alias.json": "b=1", // named as the operator named it
	} {
		got, err := probe(t, p, path)
		require.NoError(t, err, path)
		require.Equal(t, want, got, path)
	}
	for _, path := range []string{
		"r3other.txt", "r3../other.txt", "r3conf.json/../other.txt", "r3./other.txt",
		"r3" + filepath.Join(dir, "other.txt"), "r3.", "r3", "r4conf.json", "r4b.json", "r3alias.json",
		"w3conf.json", "w3new.txt",
	} {
		_, err := probe(t, p, path)
		require.ErrorIs(t, err, abi.ErrNotFound, path)
	}

	t.Run("edits are seen", func(t *testing.T) {
		tmp := conf + ".tmp"
		require.NoError(t, os.WriteFile(tmp, []byte("a=2"), 0o644))
		require.NoError(t, os.Rename(tmp, conf))
		got, err := probe(t, p, "r3conf.json")
		require.NoError(t, err)
		require.Equal(t, "a=2", got)
	})
	t.Run("a symlink swapped in is refused", func(t *testing.T) {
		require.NoError(t, os.Remove(conf))
		require.NoError(t, os.Symlink(filepath.Join(outside, "secret"), conf))
		_, err := probe(t, p, "r3conf.json")
		require.ErrorIs(t, err, abi.ErrNotFound)
	})
	t.Run("a FIFO swapped in is refused without blocking", func(t *testing.T) {
		require.NoError(t, os.Remove(conf))
		if err := exec.Command("mkfifo", conf).Run(); err != nil {
			t.Skip("mkfifo not available")
		}
		_, err := probe(t, p, "r3conf.json")
		require.ErrorIs(t, err, abi.ErrNotFound)
	})
}

func TestGrantPathRefused(t *testing.T) {
	ctx := t.Context()
	rt, err := runtime.New(ctx, runtime.NewConfig())
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(ctx) })
	wasm, err := os.ReadFile(filepath.Join("testdata", "grantprobe.wasm"))
	require.NoError(t, err)
	for name, host := range map[string]string{
		"missing": filepath.Join(t.TempDir(), "nope"),
		"device":  "/dev/null",
	} {
		cfg := testkit.Limits(runtime.NewProviderConfig()).WithGrants(runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: host}}})
		_, err := rt.Load(ctx, "grantprobe", wasm, cfg)
		require.ErrorIs(t, err, runtime.ErrConfig, name)
		require.ErrorContains(t, err, "grant", name)
	}
}

// TestFileGrantListing: a real Go guest (the files provider) walking a
// single-file grant with fd_readdir sees exactly that file.
func TestFileGrantListing(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	for name, body := range map[string]string{"notes.md": "# hi\n", "private.txt": "no"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	rt, err := runtime.New(ctx, runtime.NewConfig())
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(ctx) })
	grant := runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: filepath.Join(dir, "notes.md")}}}
	// -race on a busy machine compiles a Go guest slowly.
	cfg := testkit.Limits(runtime.NewProviderConfig()).WithCompileTimeout(10 * time.Minute).WithGrants(grant)
	p, err := rt.LoadFile(ctx, testguest.Go(t, "guests/files"), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close(ctx) })
	page, err := p.List(ctx, "")
	require.NoError(t, err)
	require.Len(t, page.Resources, 1)
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	require.Equal(t, "file://"+filepath.ToSlash(real)+"/notes.md", page.Resources[0].URI, "a single file, at its real path")
	res, err := p.Read(ctx, page.Resources[0].URI)
	require.NoError(t, err)
	require.Equal(t, "# hi\n", *res.Contents[0].Text)
	_, err = p.Read(ctx, "file://"+filepath.ToSlash(real)+"/private.txt")
	require.ErrorIs(t, err, abi.ErrNotFound)
}

// TestGrantTreeFIFO: a FIFO inside a granted directory is refused at once.
// Opening it for reading would block the host in the kernel, inside a host
// function the call's deadline cannot interrupt.
func TestGrantTreeFIFO(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ok.txt"), []byte("fine"), 0o644))
	if err := exec.Command("mkfifo", filepath.Join(dir, "pipe")).Run(); err != nil {
		t.Skip("mkfifo not available")
	}
	p := grantProbe(t, runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: dir}}})
	got, err := probe(t, p, "r3ok.txt")
	require.NoError(t, err)
	require.Equal(t, "fine", got)
	done := make(chan error, 1)
	go func() { _, err := probe(t, p, "r3pipe"); done <- err }()
	select {
	case err := <-done:
		require.ErrorIs(t, err, abi.ErrNotFound)
	case <-time.After(testkit.Wait):
		t.Fatal("opening a FIFO in a granted directory blocked the host")
	}
}
