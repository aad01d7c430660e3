//go:build unix

package main_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// nobody is the user a root test run drops to, so that file permissions
// apply to it: root reads a mode-000 file anyway (CAP_DAC_OVERRIDE).
const nobody = 65534

// TestFilesWasmUnreadable: a file or directory that mcp-wasm's user cannot
// read, in a granted directory, is skipped with a log line naming it; the
// rest is listed, and reading it is not_found. Run as root, the test runs
// itself again as user nobody, for whom the permissions hold.
func TestFilesWasmUnreadable(t *testing.T) {
	if wasm := os.Getenv(envFilesWasm); wasm != "" {
		testFilesWasmUnreadable(t, wasm)
		return
	}
	eachBuild(t, func(t *testing.T, wasm string) {
		if os.Geteuid() == 0 {
			runAsNobody(t, "TestFilesWasmUnreadable", wasm)
			return
		}
		testFilesWasmUnreadable(t, wasm)
	})
}

func testFilesWasmUnreadable(t *testing.T, wasm string) {
	root := t.TempDir()
	for _, rel := range []string{"a.txt", "locked.txt", "lockeddir/x.txt", "noexec/y.txt", "sub/b.txt"} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(rel), 0o644))
	}
	at := func(rel string) string { return filepath.Join(root, rel) }
	require.NoError(t, os.Chmod(at("locked.txt"), 0))
	require.NoError(t, os.Chmod(at("lockeddir"), 0))
	require.NoError(t, os.Chmod(at("noexec"), 0o444)) // names readable, entries not
	t.Cleanup(func() {
		for _, d := range []string{"lockeddir", "noexec"} {
			_ = os.Chmod(at(d), 0o755) // let t.TempDir remove them
		}
	})
	if _, err := os.ReadFile(at("locked.txt")); err == nil {
		t.Skip("this user reads mode-000 files (it has CAP_DAC_OVERRIDE): permissions cannot be tested")
	}

	p, logs := loadFiles(t, wasm, root)
	require.Equal(t, []string{"a.txt", "sub/b.txt"}, listNames(t, p))
	for _, line := range [][]string{
		{"guest: skip /data/locked.txt: ", "permission denied"},
		{"guest: skip directory /data/lockeddir ", "permission denied"},
		// noexec's names can be read (with their types), its entries
		// cannot be looked at: each is skipped on its own.
		{"guest: skip /data/noexec/y.txt: ", "permission denied"},
	} {
		require.NotEmpty(t, logs.lines(line...), "no log line with %q in:\n%s", line, logs)
	}
	require.Empty(t, logs.lines("grant the files provider"))
	for _, uri := range []string{"file:///data/locked.txt", "file:///data/lockeddir/x.txt", "file:///data/noexec/y.txt"} {
		_, err := p.Read(t.Context(), uri)
		require.ErrorIs(t, err, abi.ErrNotFound, uri)
	}

	t.Run("the granted directory itself", func(t *testing.T) {
		require.NoError(t, os.Chmod(root, 0o311)) // searchable, not readable
		t.Cleanup(func() { _ = os.Chmod(root, 0o755) })
		_, err := p.List(t.Context(), "")
		require.ErrorIs(t, err, abi.ErrProviderInternal)
		require.ErrorContains(t, err, "make it readable by the user mcp-wasm runs as")
	})
}

// runAsNobody runs the test named test in a copy of this test binary as
// user nobody, and fails or skips as it does. It skips when this process
// cannot switch users.
func runAsNobody(t *testing.T, test, wasm string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "nobody-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	bin, guest, tmp := filepath.Join(dir, "test.bin"), filepath.Join(dir, "files.wasm"), filepath.Join(dir, "tmp")
	copyFile(t, os.Args[0], bin, 0o755)
	copyFile(t, wasm, guest, 0o644)
	require.NoError(t, os.Mkdir(tmp, 0o700))
	require.NoError(t, os.Chown(tmp, nobody, nobody))

	cmd := exec.Command(bin, "-test.run=^"+test+"$", "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = []string{"TMPDIR=" + tmp, "HOME=" + tmp, "PATH=" + os.Getenv("PATH"), envFilesWasm + "=" + guest}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Skipf("cannot run the test as user nobody: %v", err)
	}
	text := string(out)
	switch {
	case err != nil:
		t.Fatalf("as user nobody: %v\n%s", err, text)
	case strings.Contains(text, "--- SKIP: "+test):
		t.Skipf("as user nobody: %s", text)
	}
	require.Contains(t, text, "--- PASS: "+test, text)
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	src, err := os.ReadFile(from)
	require.NoError(t, err)
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	require.NoError(t, err)
	_, err = io.Copy(dst, bytes.NewReader(src))
	require.NoError(t, err)
	require.NoError(t, dst.Close())
}
