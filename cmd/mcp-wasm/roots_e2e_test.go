//lint:file-ignore SA1019 roots (deprecated in 2026-07-28) are what --grant-roots reads from 2025-era clients

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
)

// TestE2E_ImplicitDirRefused: serve with no --allow-dir refuses to serve
// a broad current directory (/, the home directory, one holding it, the
// temp directory), saying the fix, and serves a project directory.
func TestE2E_ImplicitDirRefused(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "homes", "me")
	tmp := filepath.Join(base, "tmp")
	project := filepath.Join(home, "project")
	for _, d := range []string{project, tmp} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	env := append(os.Environ(), "HOME="+home, "TMPDIR="+tmp)
	for _, tt := range []struct {
		name, dir, why string
	}{
		{"root", "/", "the root of the file system"},
		{"home", home, "your home directory"},
		{"parent of home", filepath.Dir(home), "a directory that holds your home directory"},
		{"temp dir", tmp, "the system temp directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(binary(t), "serve", "--cache-dir", testguest.CompileCache())
			cmd.Dir, cmd.Env = tt.dir, env
			out, err := cmd.CombinedOutput()
			require.Error(t, err, "%s", out)
			require.Equal(t, 1, cmd.ProcessState.ExitCode(), "%s", out)
			require.Contains(t, string(out), tt.why)
			require.Contains(t, string(out), "pass --allow-dir DIR")
			require.Contains(t, string(out), "start mcp-wasm from the project directory")
		})
	}
	t.Run("project", func(t *testing.T) {
		cmd := exec.Command(binary(t), "serve", "--cache-dir", testguest.CompileCache())
		cmd.Dir, cmd.Env = project, env
		out, err := cmd.CombinedOutput() // stdin is empty: serves, then ends
		require.NoError(t, err, "%s", out)
		require.Contains(t, string(out), "serving every regular file under "+project)
	})
	t.Run("explicit grant warns", func(t *testing.T) {
		cmd := exec.Command(binary(t), "serve", "--cache-dir", testguest.CompileCache(), "--allow-dir", home)
		cmd.Dir, cmd.Env = "/", env
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Contains(t, string(out), "granting a broad directory")
		require.Contains(t, string(out), "serving every regular file under "+home)
	})
}

// TestE2E_GrantRootsUsage: --grant-roots is refused where one client's
// roots would not be the only client's, or where it grants nothing.
func TestE2E_GrantRootsUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--http", "127.0.0.1:0"},
		{"--module", "x.wasm"},
		{"--config", "x.json"},
	} {
		out, err := exec.Command(binary(t), append([]string{"serve", "--grant-roots"}, args...)...).CombinedOutput()
		require.Error(t, err, "%s", out)
		require.Contains(t, string(out), "--grant-roots", args)
	}
}

// waitWriter collects a child's stderr and lets the test wait for a line.
type waitWriter struct {
	mu   sync.Mutex
	buf  strings.Builder
	more chan struct{} // closed and replaced at every write
}

func newWaitWriter() *waitWriter { return &waitWriter{more: make(chan struct{})} }

func (w *waitWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	close(w.more)
	w.more = make(chan struct{})
	return len(p), nil
}

// String returns the output so far.
func (w *waitWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// waitFor waits until the output holds s.
func (w *waitWriter) waitFor(ctx context.Context, s string) error {
	for {
		w.mu.Lock()
		has, more := strings.Contains(w.buf.String(), s), w.more
		w.mu.Unlock()
		if has {
			return nil
		}
		select {
		case <-more:
		case <-ctx.Done():
			return fmt.Errorf("waiting for %q: %w", s, ctx.Err())
		}
	}
}

// TestE2E_GrantRoots: with --grant-roots, the go-sdk client's roots are
// what the real binary serves over stdio, followed as the client changes
// them; a hostile or careless root (/, the home directory, a symlink to /,
// a file, another machine's, a path with .., a scheme that is not file, a
// list too long) grants nothing, and the current directory (/ here) is
// not served.
func TestE2E_GrantRoots(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	base := t.TempDir()
	home := filepath.Join(base, "home")
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	for _, d := range []string{home, a, b, filepath.Join(a, "sub")} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	for p, text := range map[string]string{
		filepath.Join(a, "one.txt"): "one", filepath.Join(a, "sub", "two.txt"): "two",
		filepath.Join(b, "three.txt"): "three", filepath.Join(home, "secret.txt"): "host secret",
	} {
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	require.NoError(t, os.Symlink("/", filepath.Join(base, "to-root")))
	require.NoError(t, os.Symlink(home, filepath.Join(base, "to-home")))
	uri := func(p string) string { return "file://" + p }

	changed := make(chan struct{}, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "roots-e2e", Version: "1"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- struct{}{} },
	})
	client.AddRoots(
		&mcp.Root{URI: uri(a), Name: "a"},
		&mcp.Root{URI: uri(filepath.Join(a, "sub"))}, // inside a: adds nothing
		&mcp.Root{URI: "file:///"},
		&mcp.Root{URI: uri(home)},
		&mcp.Root{URI: uri(filepath.Join(base, "to-root"))},
		&mcp.Root{URI: uri(filepath.Join(base, "to-home"))},
		&mcp.Root{URI: uri(filepath.Join(home, "secret.txt"))},
		&mcp.Root{URI: uri(filepath.Join(base, "missing"))},
		&mcp.Root{URI: "file://elsewhere" + b},
		&mcp.Root{URI: uri(a + "/../home")},
		&mcp.Root{URI: "http://localhost" + b},
		&mcp.Root{URI: uri(b) + "?x=1"},
	)
	logs := newWaitWriter()
	cmd := exec.CommandContext(ctx, binary(t), "serve", "--grant-roots", "--cache-dir", testguest.CompileCache())
	cmd.Dir, cmd.Stderr = "/", logs
	cmd.Env = append(os.Environ(), "HOME="+home)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close(); t.Log(logs.String()) })

	served := func() []string {
		var out []string
		for _, r := range listAll(t, cs) {
			out = append(out, r.URI)
		}
		slices.Sort(out)
		return out
	}
	wait := func() {
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatal("no notifications/resources/list_changed")
		}
	}
	readable := func(p string) bool {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uriIn(t, filepath.Dir(p), filepath.Base(p))})
		return err == nil
	}

	wait()
	require.Equal(t, []string{uriIn(t, a, "one.txt"), uriIn(t, a, "sub/two.txt")}, served())
	require.False(t, readable(filepath.Join(home, "secret.txt")))
	require.False(t, readable(filepath.Join(b, "three.txt")))

	client.AddRoots(&mcp.Root{URI: uri(b) + "/"})
	wait()
	require.Equal(t, []string{uriIn(t, a, "one.txt"), uriIn(t, a, "sub/two.txt"), uriIn(t, b, "three.txt")}, served())

	client.RemoveRoots(uri(a))
	wait()
	require.Equal(t, []string{uriIn(t, a, "sub/two.txt"), uriIn(t, b, "three.txt")}, served(), "a/sub is a root of its own")
	require.False(t, readable(filepath.Join(a, "one.txt")))

	var many []*mcp.Root
	for i := range maxRoots {
		d := filepath.Join(base, "many", fmt.Sprint(i))
		require.NoError(t, os.MkdirAll(d, 0o755))
		many = append(many, &mcp.Root{URI: uri(d)})
	}
	client.AddRoots(many...)
	require.NoError(t, logs.waitFor(ctx, "client roots refused"))
	require.Equal(t, []string{uriIn(t, a, "sub/two.txt"), uriIn(t, b, "three.txt")}, served(), "a list too long changes nothing")
	for _, refused := range []string{"not a file:// URI", "names another machine", "not an absolute, clean path", "no such directory",
		"not a directory", "is the root of the file system", "is your home directory", "has parts"} {
		require.Contains(t, logs.String(), refused)
	}
}
