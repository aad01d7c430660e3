package filesprov

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

func TestListResumesWithoutRewalking(t *testing.T) {
	files := map[string]string{}
	for d := range 20 {
		for f := range 50 {
			files[fmt.Sprintf("d%02d/f%02d.txt", d, f)] = "x"
		}
	}
	root := tree(t, files)
	cfs := &countingFS{FS: os.DirFS(root)}
	h := newHarness(t, root, nil)
	h.p.roots[0].fsys = cfs
	h.p.pageSize = 100

	var page abi.ListResult
	h.ok(abi.OpList, abi.PageRequest{Cursor: cursorPrefix + "/data/d09/f99.txt"}, &page)
	require.Equal(t, "d10/f00.txt", page.Resources[0].Name)
	require.Equal(t, "d11/f49.txt", page.Resources[99].Name)
	require.Equal(t, cursorPrefix+"/data/d11/f49.txt", page.NextCursor)
	// root, d09 (resume point), d10, d11, and d12 to find the 101st file.
	require.Equal(t, int64(5), cfs.readDirs.Load())

	names, pages := h.listAll()
	require.Len(t, names, 1000)
	require.Equal(t, 10, pages)
}

func TestListSkipsPathsTooLongForACursor(t *testing.T) {
	long := ""
	for len(testMount)+1+len(long) < maxEscapedPath {
		long += "abcdefghij/"
	}
	h := newHarness(t, tree(t, map[string]string{long + "f": "x", "ok": "y"}), nil)
	names, _ := h.listAll()
	require.Equal(t, []string{"ok"}, names)
}
