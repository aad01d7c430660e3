//go:build unix

package runtime

import (
	"net"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// TestWatchChanges_specialFiles: named pipes and sockets in a watched
// granted directory, there from the start or made while it is watched,
// break neither the host's watch nor the provider's changes: edits and new
// files next to them are reported.
func TestWatchChanges_specialFiles(t *testing.T) {
	for _, polling := range []bool{false, true} {
		t.Run(map[bool]string{false: "inotify", true: "poll"}[polling], func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "a.txt"), "a")
			write(t, filepath.Join(dir, "sub", "b.txt"), "b")
			require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644))
			l, err := net.Listen("unix", filepath.Join(dir, "sub", "sock"))
			require.NoError(t, err)
			t.Cleanup(func() { _ = l.Close() })
			p, r := filesFeed(t, DirGrant{HostPath: dir}, fastFeed().WithDirPolling(polling))

			require.Eventually(t, func() bool {
				write(t, filepath.Join(dir, "a.txt"), "a "+time.Now().String())
				return r.count(realURI(t, dir, "a.txt")) > 0
			}, testkit.Wait, 200*time.Millisecond)
			require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "sub", "pipe2"), 0o644))
			lists := r.listChanges()
			write(t, filepath.Join(dir, "sub", "new.md"), "new")
			require.Eventually(t, func() bool { return r.count(realURI(t, dir, "sub/new.md")) > 0 && r.listChanges() > lists },
				waitLong, 10*time.Millisecond)
			require.Zero(t, r.count(realURI(t, dir, "pipe"))+r.count(realURI(t, dir, "sub/sock"))+r.count(realURI(t, dir, "sub/pipe2")))
			require.Zero(t, p.Stats().Faults)
		})
	}
}
