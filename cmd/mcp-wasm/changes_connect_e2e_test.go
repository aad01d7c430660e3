package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestE2E_liveChangeAfterConnect: a file created, then deleted, soon after a
// client connects is announced each time, on both protocol eras, with no
// retry. The change feed used to take its baseline lazily, after the change,
// and lose it.
func TestE2E_liveChangeAfterConnect(t *testing.T) {
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) {
			t.Parallel()
			for _, delay := range []time.Duration{0, 50 * time.Millisecond, 500 * time.Millisecond, 1500 * time.Millisecond} {
				t.Run(fmt.Sprint(delay), func(t *testing.T) {
					dir := liveTree(t)
					_, h := connectLive(t, rev, "--allow-dir", dir)
					time.Sleep(delay)
					created := filepath.Join(dir, "new.txt")
					require.NoError(t, os.WriteFile(created, []byte("new"), 0o644))
					require.Eventually(t, func() bool { return h.listChanges() > 0 }, liveWait, 10*time.Millisecond,
						"a file created %s after connecting: list_changed", delay)
					lists := h.listChanges()
					require.NoError(t, os.Remove(created))
					require.Eventually(t, func() bool { return h.listChanges() > lists }, liveWait, 10*time.Millisecond,
						"the file deleted: list_changed")
				})
			}
		})
	}
}
