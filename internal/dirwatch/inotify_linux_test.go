package dirwatch

import (
	"strings"
	"testing"
)

// watchCount reports how many watches exist; tests call it before any
// event can reach the reading goroutine.
func (n *inotify) watchCount() int { return len(n.watches) }

// FuzzParse: no batch of bytes makes the event decoder panic or report a
// path outside the watched directory.
func FuzzParse(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 'a', 0, 0, 0})
	f.Add([]byte{1, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, '.', '.', '/', 'x', 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		n := &inotify{pend: newPending(100), watches: map[int32]*watch{1: {path: "/w"}}, byPath: map[string]int32{"/w": 1}}
		n.parse(b)
		paths, _ := n.pend.take()
		for _, p := range paths {
			if p != "/w" && !strings.HasPrefix(p, "/w/") {
				t.Fatalf("path %q outside the watched directory", p)
			}
		}
	})
}
