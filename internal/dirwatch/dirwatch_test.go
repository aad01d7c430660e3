package dirwatch

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

const waitLong = testkit.Wait

// backends lists the backends to test on this platform.
func backends() []struct {
	name string
	cfg  Config
} {
	out := []struct {
		name string
		cfg  Config
	}{{BackendPoll, NewConfig().WithPolling(true).WithPollInterval(20 * time.Millisecond)}}
	if runtime.GOOS == "linux" {
		out = append(out, struct {
			name string
			cfg  Config
		}{BackendInotify, NewConfig()})
	}
	return out
}

// seen collects what a watcher reports.
type seen struct {
	t        *testing.T
	w        *Watcher
	paths    map[string]bool
	overflow bool
}

func startWatch(t *testing.T, cfg Config, kind string, roots ...string) *seen {
	t.Helper()
	w, err := New(roots, cfg)
	require.NoError(t, err)
	require.Equal(t, kind, w.Backend())
	t.Cleanup(func() { require.NoError(t, w.Close()) })
	return &seen{t: t, w: w, paths: map[string]bool{}}
}

// until waits until path has been reported (or an overflow, if overflow).
func (s *seen) until(path string, overflow bool) {
	s.t.Helper()
	deadline := time.After(waitLong)
	for !s.paths[path] && !(overflow && s.overflow) {
		select {
		case <-s.w.Changed():
			paths, of := s.w.Take()
			s.overflow = s.overflow || of
			for _, p := range paths {
				s.paths[p] = true
			}
		case <-deadline:
			s.t.Fatalf("%s was not reported; saw %v", path, s.paths)
		}
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
}

func TestWatcher_tree(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			dir := t.TempDir()
			outside := filepath.Join(t.TempDir(), "secret.txt")
			write(t, outside, "s")
			write(t, filepath.Join(dir, "a.txt"), "a")
			write(t, filepath.Join(dir, "sub", "b.txt"), "b")
			require.NoError(t, os.Symlink(filepath.Dir(outside), filepath.Join(dir, "escape")))
			s := startWatch(t, b.cfg, b.name, dir)

			write(t, filepath.Join(dir, "a.txt"), "a, edited")
			s.until(filepath.Join(dir, "a.txt"), false)
			write(t, filepath.Join(dir, "sub", "b.txt"), "b, edited")
			s.until(filepath.Join(dir, "sub", "b.txt"), false)
			write(t, filepath.Join(dir, "new.txt"), "new")
			s.until(filepath.Join(dir, "new.txt"), false)
			require.NoError(t, os.Remove(filepath.Join(dir, "a.txt")))
			s.until(filepath.Join(dir, "a.txt"), false)

			write(t, filepath.Join(dir, "made", "c.txt"), "c") // a new directory is watched too
			s.until(filepath.Join(dir, "made"), false)
			write(t, filepath.Join(dir, "made", "c.txt"), "c, edited")
			s.until(filepath.Join(dir, "made", "c.txt"), false)
			require.NoError(t, os.Rename(filepath.Join(dir, "new.txt"), filepath.Join(dir, "made", "moved.txt")))
			s.until(filepath.Join(dir, "new.txt"), false)
			s.until(filepath.Join(dir, "made", "moved.txt"), false)

			write(t, outside, "s, edited") // behind a symbolic link: not watched
			write(t, filepath.Join(dir, "last.txt"), "last")
			s.until(filepath.Join(dir, "last.txt"), false)
			for p := range s.paths {
				require.NotContains(t, p, "secret", "nothing behind the symbolic link is reported")
			}
		})
	}
}

// TestWatcher_file: a single-file root reports that file only, written in
// place or replaced by a rename.
func TestWatcher_file(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "only.txt")
			write(t, file, "1")
			write(t, filepath.Join(dir, "other.txt"), "x")
			s := startWatch(t, b.cfg, b.name, file)

			write(t, filepath.Join(dir, "other.txt"), "x, edited")
			write(t, file, "2, longer")
			s.until(file, false)
			delete(s.paths, file)
			write(t, filepath.Join(dir, "tmp"), "3, replaced")
			require.NoError(t, os.Rename(filepath.Join(dir, "tmp"), file))
			s.until(file, false)
			delete(s.paths, file)
			write(t, file, "4, written after the replacement")
			s.until(file, false)
			require.Equal(t, map[string]bool{file: true}, s.paths, "only the granted file is reported")
		})
	}
}

// TestWatcher_overflow: past the pending bound the watcher reports an
// overflow instead of more paths.
func TestWatcher_overflow(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			dir := t.TempDir()
			s := startWatch(t, b.cfg.WithMaxPending(3), b.name, dir)
			for i := range 10 {
				write(t, filepath.Join(dir, string(rune('a'+i))+".txt"), "x")
			}
			s.until("", true)
			paths, _ := s.w.Take()
			require.LessOrEqual(t, len(paths), 3)
		})
	}
}

// TestWatcher_boundedWatches: past the watch bound some directories go
// unwatched, and the watcher still runs.
func TestWatcher_boundedWatches(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("inotify is Linux only")
	}
	dir := t.TempDir()
	for _, d := range []string{"a", "b", "c", "d"} {
		require.NoError(t, os.Mkdir(filepath.Join(dir, d), 0o755))
	}
	s := startWatch(t, NewConfig().WithMaxWatches(2), BackendInotify, dir)
	n := s.w.backend.(interface{ watchCount() int }).watchCount()
	require.Equal(t, 2, n)
	write(t, filepath.Join(dir, "top.txt"), "x")
	s.until(filepath.Join(dir, "top.txt"), false)
}

func TestWatcher_refusals(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		roots []string
		cfg   Config
	}{
		{"relative", []string{"relative/dir"}, NewConfig()},
		{"unclean", []string{dir + "/./x"}, NewConfig()},
		{"missing", []string{filepath.Join(dir, "missing")}, NewConfig()},
		{"bad interval", []string{dir}, NewConfig().WithPollInterval(time.Nanosecond)},
		{"bad bound", []string{dir}, NewConfig().WithMaxPending(0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.roots, tc.cfg)
			require.Error(t, err)
		})
	}
}

func TestPending(t *testing.T) {
	p := newPending(2)
	p.add("/b")
	p.add("/a")
	p.add("/a")
	paths, of := p.take()
	require.Equal(t, []string{"/a", "/b"}, paths)
	require.False(t, of)
	p.add("/a")
	p.overflowed()
	p.add("/c")
	paths, of = p.take()
	require.Empty(t, paths)
	require.True(t, of)
	paths, of = p.take()
	require.Empty(t, paths)
	require.False(t, of)
}
